/**
 * What the pages about one place or offer say inside the site's own layout (the built shell
 * marks the place: platform/built-pages.ts): a place's page (the confirmation, the manage link),
 * and a waitlist offer's page (the claim link). Every value is escaped here.
 */
import { PAGES } from '../../shared/site-paths';
import { CLASS_NOTICES } from '../../shared/classes/form';
import { escapeHtml as e } from '../../shared/html';
import { BUTTON, hero, LINK } from '../platform/page-parts';
import { siteFacts } from '../platform/site-facts';
import type { ClassDate, Seat, WaitEntry } from './store';
import { dollars } from '../../shared/money';
import { momentOf, whenOf } from './words';

const CARD = 'min-w-0 rounded-2xl border border-sand-200 bg-white p-6 shadow-sm sm:p-8';
const BUTTON_QUIET =
  'inline-flex min-h-11 items-center justify-center rounded-full border border-clay-700 bg-white px-6 py-2.5 text-base font-semibold text-clay-700 transition-colors hover:bg-sand-100';
export interface PageView {
  title: string;
  html: string;
}

function body(content: string): string {
  return `<section class="py-12 sm:py-16"><div class="mx-auto max-w-3xl space-y-6 px-5 sm:px-8">${content}</div></section>`;
}

function notice(tone: 'good' | 'bad', text: string): string {
  const colours =
    tone === 'good'
      ? 'border-sage-600 bg-sage-50 text-sage-800'
      : 'border-clay-600 bg-sand-100 text-clay-700';
  return `<div role="${tone === 'good' ? 'status' : 'alert'}" class="rounded-xl border ${colours} p-4 font-medium">${e(text)}</div>`;
}

function facts(date: ClassDate, timeZone: string, extra: [string, string][] = []): string {
  const w = whenOf(date.start, date.end, timeZone);
  const { address, name } = siteFacts();
  const rows: [string, string][] = [
    ['Class', date.title],
    ['When', `${w.date}, ${w.time} (${w.zone})`],
    ['Where', `At the studio: ${address ?? name}`],
    ...extra,
  ];
  return `<dl class="space-y-4">${rows.map(([label, value]) => `<div><dt class="text-sm font-semibold tracking-wider text-muted uppercase">${e(label)}</dt><dd class="mt-1 text-lg text-ink">${e(value)}</dd></div>`).join('')}</dl>`;
}

/**
 * A place's page: what it is and, while it can be cancelled under the policy, a form that
 * cancels it (a POST: the page itself changes nothing).
 */
export function placeView(
  seat: Seat,
  date: ClassDate,
  token: string,
  options: {
    timeZone: string;
    now: Date;
    policy: string;
    canCancel: boolean;
    done?: 'booked' | 'cancelled' | 'claimed';
    problem?: string;
  },
): PageView {
  const studio = siteFacts();
  const cancelled = seat.status === 'cancelled';
  const over = date.end <= options.now;
  const [title, text] = cancelled
    ? [
        'Your place is cancelled',
        seat.cancelledBy === 'visitor'
          ? 'You cancelled your place. Thank you for letting us know.'
          : seat.cancelledBy === 'minimum'
            ? `Fewer than ${date.minimum} people booked this class, so it will not take place. Nothing is due.`
            : `${studio.instructor} had to cancel this class. We are sorry for the change of plan.`,
      ]
    : over
      ? ['Your class has taken place', 'Thank you for coming.']
      : options.done === 'booked' || options.done === 'claimed'
        ? [CLASS_NOTICES.booked.title, CLASS_NOTICES.booked.text]
        : ['Your place', 'Your place in the class, and how to cancel it.'];
  const parts: string[] = [];
  if (options.problem) parts.push(notice('bad', options.problem));
  if (options.done === 'cancelled' && cancelled) {
    parts.push(notice('good', 'Cancelled. A confirmation is on its way to your inbox.'));
  }
  const due: [string, string] =
    seat.payment === 'paid'
      ? ['Paid', dollars(date.priceCents)]
      : seat.payment === 'held'
        ? [
            'Price',
            `${dollars(date.priceCents)}, paid online: waiting for Stripe to confirm the payment`,
          ]
        : ['Due at the studio', dollars(date.priceCents)];
  parts.push(`<div class="${CARD}">${facts(date, options.timeZone, cancelled ? [] : [due])}</div>`);
  if (!cancelled && !over) {
    parts.push(
      options.canCancel
        ? `<form method="post" action="${PAGES.classManage}" class="${CARD}" aria-labelledby="cancel-title"><input type="hidden" name="token" value="${e(token)}"><h2 id="cancel-title" class="text-2xl font-semibold">Cancel</h2><p class="mt-2 mb-5 text-muted">${e(options.policy)}</p><button type="submit" class="${BUTTON_QUIET}">Cancel my place</button></form>`
        : `<div class="${CARD}"><h2 class="text-2xl font-semibold">Cancel</h2><p class="mt-2 text-muted">${e(options.policy)} It is too late to cancel from this page: please write to <a class="${LINK}" href="mailto:${e(studio.email)}">${e(studio.email)}</a>.</p></div>`,
    );
    parts.push(
      `<p class="text-muted">Before your first class, please <a class="${LINK}" href="/waiver">complete the liability waiver</a>: it must be signed before the class.</p>`,
    );
  } else {
    parts.push(`<p><a class="${BUTTON}" href="/classes">See the classes</a></p>`);
  }
  return { title, html: hero('Small group class', title, text) + body(parts.join('')) };
}

/** A waitlist offer's page: the place held, until when, and the button that claims it. */
export function offerView(
  entry: WaitEntry,
  date: ClassDate,
  token: string,
  timeZone: string,
  state: 'open' | 'lapsed' | 'closed',
  /** With the studio's Stripe keys set, claiming goes straight to Stripe's page to pay. */
  payOnline = false,
): PageView {
  if (state !== 'open') {
    const title = state === 'lapsed' ? 'This offer has run out' : 'This place is no longer offered';
    const text =
      state === 'lapsed'
        ? 'The place was held for you for a while, and has passed to the next person waiting.'
        : 'The waitlist of this class has closed, or the class is cancelled.';
    return {
      title,
      html:
        hero('Small group class', title, text) +
        body(
          `<div class="${CARD}">${facts(date, timeZone)}</div><p><a class="${BUTTON}" href="/classes">See the classes</a></p>`,
        ),
    };
  }
  const title = 'A place is free for you';
  const until = momentOf(entry.offerExpiresAt!, timeZone);
  return {
    title,
    html:
      hero('Small group class', title, `It is held for you until ${until}.`) +
      body(
        `<div class="${CARD}">${facts(date, timeZone, [[payOnline ? 'Price, paid online' : 'Due at the studio', dollars(date.priceCents)]])}</div><form method="post" action="${PAGES.classClaim}" class="${CARD}" aria-labelledby="claim-title"><input type="hidden" name="token" value="${e(token)}"><h2 id="claim-title" class="text-2xl font-semibold">Claim your place</h2><p class="mt-2 mb-5 text-muted">If you do not claim it by then, it is offered to the next person waiting.</p><button type="submit" class="${BUTTON}">${payOnline ? 'Claim and pay' : 'Claim my place'}</button></form>`,
      ),
  };
}

/** A link that opens nothing (mistyped, cut short). */
export function unknownView(what: 'place' | 'offer'): PageView {
  const title =
    what === 'place' ? 'This link does not open a place' : 'This link does not open an offer';
  return {
    title,
    html:
      hero(
        'Small group class',
        title,
        'It may have been mistyped or cut short. Open the link from your e-mail again.',
      ) + body(`<p><a class="${BUTTON}" href="/classes">See the classes</a></p>`),
  };
}
