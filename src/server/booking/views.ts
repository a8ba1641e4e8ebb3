/**
 * What the booking's pages say inside the site's own layout (the built page marks the place:
 * built-pages.ts): the booking page's slot list, the manage page (the booking, "choose another
 * time", "cancel"), and the answer to a booking sent without script whose slot was taken
 * meanwhile (the nearest free ones, with everything typed kept in the form).
 *
 * Every value is escaped here; none is put in an attribute that could run or style anything.
 */
import {
  BOOKING_ACTION,
  BOOKING_FIELDS,
  BOOKING_NOTICES,
  type OfferedSlot,
} from '../../shared/booking/form';
import { HONEYPOT_FIELD } from '../../shared/anti-spam';
import type { ConsultationPlace } from '../../shared/booking/place';
import type { SlotDay } from '../../shared/booking/slots';
import * as zoned from '../../shared/booking/zoned';
import { escapeHtml } from '../platform/mail';
import { BUTTON, hero, LINK } from '../platform/page-parts';
import { siteFacts } from '../platform/site-facts';
import { consultationSettings } from './consultation';
import { slotRadio } from './slot-list';
import type { Booking } from './store';

const e = escapeHtml;

const CARD = 'min-w-0 rounded-2xl border border-sand-200 bg-white p-6 shadow-sm sm:p-8';
function body(content: string): string {
  return `<section class="py-12 sm:py-16"><div class="mx-auto max-w-3xl space-y-6 px-5 sm:px-8">${content}</div></section>`;
}

export type ManageDone = 'booked' | 'moved' | 'cancelled';

export interface ManageView {
  title: string;
  html: string;
}

/** What the manage page shows (src/pages/consultation/manage.astro draws it). */
export interface ManageModel {
  title: string;
  text: string;
  /** What went wrong with the form just sent. */
  problem?: string;
  /** Cancelled just now (a notice beside the booking). */
  cancelledNow?: boolean;
  /** The booking: when and where, and the studio's note when it cancelled. */
  facts?: {
    date: string;
    time: string;
    zone: string;
    place: ConsultationPlace;
    note?: string;
  };
  /** The forms to move it and to cancel it, while it is to come. */
  change?: {
    token: string;
    zone: string;
    /** The nearest free times, after a slot was taken meanwhile. */
    nearest: { start: string; label: string }[];
    days: readonly SlotDay[];
  };
  /** What the page ends with. */
  next: 'book-again' | 'waiver' | 'free-times' | 'nothing';
}

/**
 * The manage page of a booking: what it is, and (while it is live and to come) a form to move it
 * and one to cancel it. Both forms post; the page itself changes nothing.
 */
export function manageModel(
  booking: Booking,
  token: string,
  options: {
    now: Date;
    days?: readonly SlotDay[];
    done?: ManageDone;
    problem?: { text: string; nearest?: OfferedSlot[] };
  },
): ManageModel {
  const { now, days, done, problem } = options;
  const studio = siteFacts();
  const { timeZone, place } = consultationSettings();
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
  const start = zoned.instantOf(booking.start);
  const end = zoned.instantOf(booking.end);
  const live = !cancelled && !over && booking.start.getTime() > now.getTime();
  return {
    title,
    text,
    problem: problem?.text,
    cancelledNow: done === 'cancelled' && cancelled,
    facts: {
      date: zoned.fullDateLabel(start, timeZone),
      time: zoned.timeRangeLabel(start, end, timeZone),
      zone: zoned.zoneName(timeZone),
      place,
      note:
        cancelled && booking.cancelledBy !== 'visitor' && booking.cancelNote
          ? booking.cancelNote
          : undefined,
    },
    change: live
      ? {
          token,
          zone: zoned.zoneName(timeZone),
          nearest: (problem?.nearest ?? []).map((slot) => ({
            start: slot.start,
            label: `${slot.day}, ${slot.time}`,
          })),
          days: days ?? [],
        }
      : undefined,
    next: cancelled ? 'book-again' : over ? 'nothing' : 'waiver',
  };
}

/** The manage page of a link that opens no booking. */
export function unknownLinkModel(): ManageModel {
  return {
    title: 'This link does not open a consultation',
    text: 'It may have been mistyped or cut short. Open the link from your confirmation e-mail again, or book a new time.',
    next: 'free-times',
  };
}

/**
 * The answer to a booking form sent again without script (Back and send, a double click): the
 * booking it made stands, and its link is in the confirmation mail. The page says the same to
 * anyone, so it tells nobody whether any booking exists.
 */
export function repeatModel(): ManageModel {
  return {
    title: 'This form was already sent',
    text: 'If it booked a consultation, that booking stands, and the confirmation e-mail has the link to change or cancel it.',
    next: 'free-times',
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
