/**
 * What the booking's pages say inside the site's own layout (the built page marks the place:
 * built-pages.ts): the booking page's slot list, the manage page (the booking, "choose another
 * time", "cancel"), and the answer to a booking sent without script whose slot was taken
 * meanwhile (the nearest free ones, with everything typed kept in the form).
 *
 * Every value is escaped here; none is put in an attribute that could run or style anything.
 */
import { PAGES } from '../../shared/site-paths';
import {
  BOOKING_ACTION,
  BOOKING_FIELDS,
  BOOKING_NOTICES,
  type OfferedSlot,
} from '../../shared/booking/form';
import { HONEYPOT_FIELD } from '../../shared/anti-spam';
import type { SlotDay } from '../../shared/booking/slots';
import * as zoned from '../../shared/booking/zoned';
import { fullDateLabel, timeRangeLabel, zoneName } from '../../shared/time-format';
import { escapeHtml } from '../../shared/html';
import { BUTTON, hero, LINK } from '../platform/page-parts';
import { siteFacts } from '../platform/site-facts';
import { consultationSettings } from './consultation';
import { slotListHtml, slotRadio } from './slot-list';
import type { Booking } from './store';

const e = escapeHtml;

const CARD = 'min-w-0 rounded-2xl border border-sand-200 bg-white p-6 shadow-sm sm:p-8';
const BUTTON_QUIET =
  'inline-flex min-h-11 items-center justify-center rounded-full border border-clay-700 bg-white px-6 py-2.5 text-base font-semibold text-clay-700 transition-colors hover:bg-sand-100';

/** What the slot list says when no time at all is free. */
export function noFreeTimes(): string {
  const { email } = siteFacts();
  return `No time is free in the coming weeks just now. Please look again soon, or write to <a class="${LINK}" href="mailto:${e(email)}">${e(email)}</a> and we will find one.`;
}

/** The booking page's slot list. */
export function bookingSlots(days: readonly SlotDay[]): string {
  return slotListHtml(days, { idPrefix: 'consultation-slots', openDays: 1, empty: noFreeTimes() });
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

/** When and where, as the manage page lists it. */
function facts(booking: Booking): string {
  const { timeZone, place } = consultationSettings();
  const start = zoned.instantOf(booking.start);
  const end = zoned.instantOf(booking.end);
  const where =
    place.kind === 'studio'
      ? `${e(place.label)}: ${e(place.address)}`
      : `${e(place.label)}: <a class="${LINK} break-all" href="${e(place.link)}">${e(place.link)}</a>`;
  return `<dl class="space-y-4"><div><dt class="text-sm font-semibold tracking-wider text-muted uppercase">When</dt><dd class="mt-1 text-lg text-ink">${e(fullDateLabel(start, timeZone))}<br>${e(timeRangeLabel(start, end, timeZone))} <span class="text-muted">(${e(zoneName(timeZone))})</span></dd></div><div><dt class="text-sm font-semibold tracking-wider text-muted uppercase">Where</dt><dd class="mt-1 text-lg text-ink">${where}</dd></div></dl>`;
}

export type ManageDone = 'booked' | 'moved' | 'cancelled';

export interface ManageView {
  title: string;
  html: string;
}

/**
 * The manage page of a booking: what it is, and (while it is live and to come) a form to move it
 * and one to cancel it. Both forms post; the page itself changes nothing.
 */
export function manageView(
  booking: Booking,
  token: string,
  options: {
    now: Date;
    days?: readonly SlotDay[];
    done?: ManageDone;
    problem?: { text: string; nearest?: OfferedSlot[] };
  },
): ManageView {
  const { now, days, done, problem } = options;
  const studio = siteFacts();
  const cancelled = booking.cancelledAt !== null;
  const over = booking.end.getTime() <= now.getTime();
  const [title, text] = cancelled
    ? [
        'Your consultation is cancelled',
        booking.cancelledBy === 'visitor'
          ? 'You cancelled this consultation. Thank you for letting us know.'
          : `${studio.instructor} had to cancel this consultation. We are sorry for the change of plan.`,
      ]
    : over
      ? ['Your consultation has taken place', 'Thank you for coming.']
      : done === 'booked'
        ? [BOOKING_NOTICES.sent.title, BOOKING_NOTICES.sent.text]
        : done === 'moved'
          ? ['Your consultation has moved', 'The new time is below, and on its way to your inbox.']
          : ['Your consultation', 'Change the time or cancel here, whenever you need to.'];
  const parts: string[] = [];
  if (problem) parts.push(notice('bad', problem.text));
  if (done === 'cancelled' && cancelled) {
    parts.push(notice('good', 'Cancelled. A confirmation is on its way to your inbox.'));
  }
  parts.push(
    `<div class="${CARD}">${facts(booking)}${
      cancelled && booking.cancelledBy !== 'visitor' && booking.cancelNote
        ? `<p class="mt-6 border-t border-sand-200 pt-4 whitespace-pre-line text-ink"><strong class="font-semibold">A note from the studio:</strong> ${e(booking.cancelNote)}</p>`
        : ''
    }</div>`,
  );

  const hidden = `<input type="hidden" name="token" value="${e(token)}">`;
  if (!cancelled && !over && booking.start.getTime() > now.getTime()) {
    const nearest = problem?.nearest?.length
      ? `<fieldset class="mb-4"><legend class="mb-2 font-semibold text-ink">The nearest free times</legend><div class="flex flex-wrap gap-2">${problem.nearest.map((slot) => slotRadio(slot, `${slot.day}, ${slot.time}`, false)).join('')}</div></fieldset><p class="mb-2 font-semibold text-ink">Or any free time</p>`
      : '';
    parts.push(
      `<form method="post" action="${PAGES.manage}" class="${CARD}" aria-labelledby="move-title">${hidden}<input type="hidden" name="action" value="move"><h2 id="move-title" class="text-2xl font-semibold">Choose another time</h2><p class="mt-2 mb-5 text-muted">Times are ${e(zoneName(consultationSettings().timeZone))}.</p>${nearest}${slotListHtml(days ?? [], { idPrefix: 'move-slots', openDays: 1, empty: noFreeTimes() })}${(days ?? []).length > 0 ? `<button type="submit" class="${BUTTON} mt-6">Move my consultation</button>` : ''}</form>`,
      `<form method="post" action="${PAGES.manage}" class="${CARD}" aria-labelledby="cancel-title">${hidden}<input type="hidden" name="action" value="cancel"><h2 id="cancel-title" class="text-2xl font-semibold">Cancel</h2><p class="mt-2 mb-5 text-muted">If you cannot come, cancel here: the time is freed for someone else, and you get a confirmation by e-mail.</p><button type="submit" class="${BUTTON_QUIET}">Cancel my consultation</button></form>`,
    );
  }
  if (cancelled) {
    parts.push(`<p><a class="${BUTTON}" href="/consultation">Book another time</a></p>`);
  } else if (!over) {
    parts.push(
      `<p class="text-muted">Before your first session, please <a class="${LINK}" href="/waiver">complete the liability waiver</a>: it takes about 5 minutes.</p>`,
    );
  }
  return { title, html: hero('Free consultation', title, text) + body(parts.join('')) };
}

/** The manage page of a link that opens no booking. */
export function unknownLinkView(): ManageView {
  const title = 'This link does not open a consultation';
  return {
    title,
    html:
      hero(
        'Free consultation',
        title,
        'It may have been mistyped or cut short. Open the link from your confirmation e-mail again, or book a new time.',
      ) + body(`<p><a class="${BUTTON}" href="/consultation">See the free times</a></p>`),
  };
}

/**
 * The answer to a booking form sent again without script (Back and send, a double click): the
 * booking it made stands, and its link is in the confirmation mail. The page says the same to
 * anyone, so it tells nobody whether any booking exists.
 */
export function repeatView(): ManageView {
  const title = 'This form was already sent';
  return {
    title,
    html:
      hero(
        'Free consultation',
        title,
        'If it booked a consultation, that booking stands, and the confirmation e-mail has the link to change or cancel it.',
      ) + body(`<p><a class="${BUTTON}" href="/consultation">See the free times</a></p>`),
  };
}

/**
 * The answer to a booking sent without script whose slot was taken between loading and sending:
 * the nearest free slots in a form that holds everything the visitor typed (escaped, as hidden
 * fields), so choosing one and pressing the button books it.
 */
export function takenView(nearest: OfferedSlot[], typed: Record<string, unknown>): ManageView {
  const title = BOOKING_NOTICES.taken.title;
  const value = (name: string) => {
    const typedValue = typed[name];
    return typeof typedValue === 'string' ? typedValue : '';
  };
  const kept = (Object.keys(BOOKING_FIELDS) as (keyof typeof BOOKING_FIELDS)[])
    .map((name) => `<input type="hidden" name="${name}" value="${e(value(name))}">`)
    .join('');
  const form =
    nearest.length > 0
      ? `<form method="post" action="${BOOKING_ACTION}" class="${CARD}" aria-labelledby="nearest-title">${kept}<input type="hidden" name="${HONEYPOT_FIELD}" value=""><fieldset><legend id="nearest-title" class="text-2xl font-semibold">The nearest free times</legend><div class="mt-5 flex flex-wrap gap-2">${nearest.map((slot) => slotRadio(slot, `${slot.day}, ${slot.time}`, false)).join('')}</div></fieldset><button type="submit" class="${BUTTON} mt-6">Book this time</button></form>`
      : '';
  return {
    title,
    html:
      hero(
        'Free consultation',
        title,
        nearest.length > 0 ? BOOKING_NOTICES.taken.text : BOOKING_NOTICES.taken.none,
      ) + body(`${form}<p><a class="${LINK}" href="/consultation">See all the free times</a></p>`),
  };
}
