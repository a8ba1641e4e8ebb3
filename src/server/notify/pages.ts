/**
 * The pages the list's mail links open, each the built page `notify/link.html` with its part filled
 * in (platform/built-pages.ts):
 *
 * - `/notify/confirm?token=`: GET shows the sign-up and a Confirm button, and changes nothing
 *   (mail scanners open links); the button's POST confirms, once (store.ts), and comes back to
 *   the page, which then says the address is on the list.
 * - `/notify/unsubscribe?token=`: GET asks, and changes nothing; a POST unsubscribes at once.
 *   That POST is also RFC 8058's one-click unsubscribe, which a mail client sends by itself,
 *   without cookies and from no page of ours: it is the token that authorises it, so it takes no
 *   origin check and any body, and answers 200.
 *
 * Personal pages: never cached, never indexed, no Referer leaves them (their address holds the
 * token). Every value is escaped.
 */
import { PAGES } from '../../shared/site-paths';
import { isToken } from '../platform/tokens';
import { builtPage, fillPage, pageAnswer } from '../platform/built-pages';
import { escapeHtml } from '../../shared/html';
import { BUTTON, hero, LINK, PERSONAL } from '../platform/page-parts';
import { readSetting } from '../platform/settings';
import { siteFacts } from '../platform/site-facts';
import { guardPost, readBody, type FunctionContext } from '../request/guard';
import { problemPage, seeOther } from '../request/pages';
import {
  confirmSubscription,
  confirmationByToken,
  subscriberByUnsubscribeToken,
  unsubscribe,
} from './store';

const e = escapeHtml;

interface View {
  title: string;
  text: string;
  /** HTML after the text (a form, a link), already escaped. */
  more?: string;
  tone?: 'good' | 'bad';
}

function page(req: Request, view: View, status = 200): Promise<Response> {
  const title = `${e(view.title)} | ${e(siteFacts().name)}`;
  const colour = view.tone === 'bad' ? 'border-clay-600' : 'border-sand-200';
  const html = `${hero('Event announcements', view.title)}<section class="py-12 sm:py-16"><div class="mx-auto max-w-3xl px-5 sm:px-8"><div class="min-w-0 rounded-2xl border ${colour} bg-white p-6 shadow-sm sm:p-8" role="${view.tone === 'bad' ? 'alert' : 'status'}"><p class="text-lg leading-relaxed text-ink">${e(view.text)}</p>${view.more ?? ''}</div></div></section>`;
  const filled = fillPage(builtPage('notify/link.html'), { page: html }, title);
  return pageAnswer(req, PAGES.notifyLink, filled, { status, headers: PERSONAL });
}

const backToEvents = `<p class="mt-6"><a class="${LINK}" href="/events">See the events</a></p>`;

const UNKNOWN: View = {
  title: 'This link does not work',
  text: 'It may have been mistyped or cut short. Open it again from the e-mail, or sign up again on the Events page.',
  more: backToEvents,
  tone: 'bad',
};

const EXPIRED: View = {
  title: 'This link has expired',
  text: 'A confirmation link works for 48 hours, and only until the address leaves the list. Sign up again on the Events page for a new one.',
  more: `<p class="mt-6"><a class="${BUTTON}" href="/events">Sign up again</a></p>`,
  tone: 'bad',
};

const ON_THE_LIST: View = {
  title: 'You are on the list',
  text: 'Thank you. We will e-mail you when new event dates are announced; every e-mail has a link to stop them.',
  more: backToEvents,
  tone: 'good',
};

/** GET of a confirmation link: what it would do, and the button that does it. */
export async function showConfirmPage(req: Request): Promise<Response> {
  const token = new URL(req.url).searchParams.get('token');
  const found = isToken(token) ? await confirmationByToken(token) : undefined;
  if (!found || !token) return page(req, UNKNOWN, 404);
  if (found.listed) return page(req, ON_THE_LIST);
  if (found.used || found.expired || found.superseded) return page(req, EXPIRED, 410);
  return page(req, {
    title: 'Confirm your address',
    text: `Press Confirm to have ${found.email} told when ${siteFacts().name} announces new event dates. Nothing else is sent to it.`,
    more: `<form method="post" action="${PAGES.notifyConfirm}" class="mt-6"><input type="hidden" name="token" value="${e(token)}"><button type="submit" class="${BUTTON}">Confirm</button></form>`,
  });
}

/** POST of the Confirm button: confirms once, then back to the link's page (303). */
export async function confirmFromPage(req: Request, context?: FunctionContext): Promise<Response> {
  const guarded = await guardPost(req, context, {
    form: 'notify',
    maxBytes: 1024,
    rateLimit: readSetting('NOTIFY_RATE_LIMIT'),
  });
  if (!guarded.ok) {
    return problemPage({
      problem: guarded.problem,
      words: {
        title: 'Your address could not be confirmed',
        text: guarded.problem.error,
        fallback: `Please try again or write to ${siteFacts().email}`,
      },
      labels: {},
      formPage: { href: PAGES.events, label: 'Return to Events' },
    });
  }
  const { body, client } = guarded.value;
  const token = body.token;
  if (!isToken(token)) return page(req, UNKNOWN, 404);
  const outcome = await confirmSubscription(token, client.ip);
  if (outcome === 'unknown') return page(req, UNKNOWN, 404);
  if (outcome === 'expired') return page(req, EXPIRED, 410);
  return seeOther(`${PAGES.notifyConfirm}?token=${token}`);
}

function unsubscribeForm(token: string): string {
  return `<form method="post" action="${PAGES.notifyUnsubscribe}?token=${e(token)}" class="mt-6"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit" class="${BUTTON}">Unsubscribe</button></form>`;
}

const UNSUBSCRIBED: View = {
  title: 'You are unsubscribed',
  text: 'This address will get no more e-mails about events. Changed your mind? Sign up again on the Events page.',
  more: backToEvents,
  tone: 'good',
};

/** GET of an unsubscribe link: asks, and changes nothing. */
export async function showUnsubscribePage(req: Request): Promise<Response> {
  const token = new URL(req.url).searchParams.get('token');
  const found = isToken(token) ? await subscriberByUnsubscribeToken(token) : undefined;
  if (!found || !token) return page(req, UNKNOWN, 404);
  if (found.unsubscribed) return page(req, UNSUBSCRIBED);
  return page(req, {
    title: 'Unsubscribe from event announcements?',
    text: `Press Unsubscribe and ${found.email} gets no more e-mails about ${siteFacts().name}'s events.`,
    more: unsubscribeForm(token),
  });
}

/**
 * POST to an unsubscribe link, from its page or as RFC 8058's one-click (a mail client's
 * cookie-less POST with `List-Unsubscribe=One-Click`): unsubscribes at once, answers 200.
 */
export async function unsubscribeFromLink(req: Request): Promise<Response> {
  // Read (and cap) whatever came; the token in the link is what counts.
  if (req.headers.get('content-type')) await readBody(req, 'form', 4 * 1024).catch(() => undefined);
  const token = new URL(req.url).searchParams.get('token');
  const found = isToken(token) ? await subscriberByUnsubscribeToken(token) : undefined;
  if (!found) return page(req, UNKNOWN, 404);
  await unsubscribe(found.id);
  return page(req, UNSUBSCRIBED);
}
