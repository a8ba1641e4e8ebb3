/**
 * What the manage page of a booking says (the booking, "choose another time", "cancel"): its
 * model, which src/pages/consultation/manage.astro draws.
 */
import { BOOKING_NOTICES, type OfferedSlot } from '../../shared/booking/form';
import type { ConsultationPlace } from '../../shared/booking/place';
import type { SlotDay } from '../../shared/booking/slots';
import * as zoned from '../../shared/booking/zoned';
import { fullDateLabel, timeRangeLabel, zoneName } from '../../shared/time-format';
import { siteFacts } from '../platform/site-facts';
import { consultationSettings } from './consultation';
import type { Booking } from './store';

export type ManageDone = 'booked' | 'moved' | 'cancelled';

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
      date: fullDateLabel(start, timeZone),
      time: timeRangeLabel(start, end, timeZone),
      zone: zoneName(timeZone),
      place,
      note:
        cancelled && booking.cancelledBy !== 'visitor' && booking.cancelNote
          ? booking.cancelNote
          : undefined,
    },
    change: live
      ? {
          token,
          zone: zoneName(timeZone),
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
