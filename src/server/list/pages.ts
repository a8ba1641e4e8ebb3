/**
 * What the pages the list's mail links open say (src/pages/notify/confirm.astro and
 * unsubscribe.astro, rendered on demand, draw it):
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
 * token).
 */
import { PAGES } from '../../shared/site-paths';
import { isToken } from '../platform/tokens';
import { readSetting } from '../platform/settings';
import { siteFacts } from '../platform/site-facts';
import { guardPost, readBody, type FunctionContext } from '../request/guard';
import { refusalOf, seeOther, type Refused } from '../request/pages';
import {
  confirmSubscription,
  confirmationByToken,
  subscriberByUnsubscribeToken,
  unsubscribe,
} from './store';

/** What a link page says, and what it offers after its words. */
export interface ListView {
  title: string;
  text: string;
  /** After the text: a link to the events, a button to sign up again, or a form. */
  more?:
    | { kind: 'events' }
    | { kind: 'sign-up' }
    | { kind: 'confirm'; token: string }
    | { kind: 'unsubscribe'; token: string };
  tone?: 'good' | 'bad';
}

/** What a link page answers: the page with what it shows, or an answer of its own. */
export type ListAnswer = { view: ListView; status: number } | { response: Response } | Refused;

const page = (view: ListView, status = 200): ListAnswer => ({ view, status });

const UNKNOWN: ListView = {
  title: 'This link does not work',
  text: 'It may have been mistyped or cut short. Open it again from the e-mail, or sign up again on the Events page.',
  more: { kind: 'events' },
  tone: 'bad',
};

const EXPIRED: ListView = {
  title: 'This link has expired',
  text: 'A confirmation link works for 48 hours, and only until the address leaves the list. Sign up again on the Events page for a new one.',
  more: { kind: 'sign-up' },
  tone: 'bad',
};

const ON_THE_LIST: ListView = {
  title: 'You are on the list',
  text: 'Thank you. We will e-mail you when new event dates are announced; every e-mail has a link to stop them.',
  more: { kind: 'events' },
  tone: 'good',
};

/** GET of a confirmation link: what it would do, and the button that does it. */
export async function showConfirmPage(req: Request): Promise<ListAnswer> {
  const token = new URL(req.url).searchParams.get('token');
  const found = isToken(token) ? await confirmationByToken(token) : undefined;
  if (!found || !token) return page(UNKNOWN, 404);
  if (found.listed) return page(ON_THE_LIST);
  if (found.used || found.expired || found.superseded) return page(EXPIRED, 410);
  return page({
    title: 'Confirm your address',
    text: `Press Confirm to have ${found.email} told when ${siteFacts().name} announces new event dates. Nothing else is sent to it.`,
    more: { kind: 'confirm', token },
  });
}

/** POST of the Confirm button: confirms once, then back to the link's page (303). */
export async function confirmFromPage(
  req: Request,
  context?: FunctionContext,
): Promise<ListAnswer> {
  const guarded = await guardPost(req, context, {
    form: 'list',
    maxBytes: 1024,
    rateLimit: readSetting('LIST_RATE_LIMIT'),
  });
  if (!guarded.ok) {
    return refusalOf({
      problem: guarded.problem,
      words: {
        title: 'Your address could not be confirmed',
        text: guarded.problem.error,
        fallback: `Please try again or write to ${siteFacts().email}`,
      },
      labels: {},
      formPage: { href: '/events', label: 'Return to Events' },
    });
  }
  const { body, client } = guarded.value;
  const token = body.token;
  if (!isToken(token)) return page(UNKNOWN, 404);
  const outcome = await confirmSubscription(token, client.ip);
  if (outcome === 'unknown') return page(UNKNOWN, 404);
  if (outcome === 'expired') return page(EXPIRED, 410);
  return { response: seeOther(`${PAGES.listConfirm}?token=${token}`) };
}

const UNSUBSCRIBED: ListView = {
  title: 'You are unsubscribed',
  text: 'This address will get no more e-mails about events. Changed your mind? Sign up again on the Events page.',
  more: { kind: 'events' },
  tone: 'good',
};

/** GET of an unsubscribe link: asks, and changes nothing. */
export async function showUnsubscribePage(req: Request): Promise<ListAnswer> {
  const token = new URL(req.url).searchParams.get('token');
  const found = isToken(token) ? await subscriberByUnsubscribeToken(token) : undefined;
  if (!found || !token) return page(UNKNOWN, 404);
  if (found.unsubscribed) return page(UNSUBSCRIBED);
  return page({
    title: 'Unsubscribe from event announcements?',
    text: `Press Unsubscribe and ${found.email} gets no more e-mails about ${siteFacts().name}'s events.`,
    more: { kind: 'unsubscribe', token },
  });
}

/**
 * POST to an unsubscribe link, from its page or as RFC 8058's one-click (a mail client's
 * cookie-less POST with `List-Unsubscribe=One-Click`): unsubscribes at once, answers 200.
 */
export async function unsubscribeFromLink(req: Request): Promise<ListAnswer> {
  // Read (and cap) whatever came; the token in the link is what counts.
  if (req.headers.get('content-type')) await readBody(req, 'form', 4 * 1024).catch(() => undefined);
  const token = new URL(req.url).searchParams.get('token');
  const found = isToken(token) ? await subscriberByUnsubscribeToken(token) : undefined;
  if (!found) return page(UNKNOWN, 404);
  await unsubscribe(found.id);
  return page(UNSUBSCRIBED);
}
