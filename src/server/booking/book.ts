/**
 * The steps of booking a consultation that are the booking's own, called in order by
 * functions/book-consultation.ts between the steps every form takes (request/steps.ts):
 *
 *   findRepeat (a submission id already booked: answered from its row, read once) → checkBooking
 *   (the slot offered right now, else 409 with the nearest free ones; an address books only so
 *   often, 429; the caps on consultations to come, 409) → storeBooking (the row inserted and its
 *   mails queued in one transaction: the invites now, the reminder a day before; the database's
 *   refusal of a taken slot is 409 again, the race lost) → answerBooking (when and where, with
 *   the link to change or cancel).
 */
import {
  SLOT_TAKEN,
  type BookedSummary,
  type BookingRequest,
  type OfferedSlot,
} from '../../shared/booking/form';
import { waitInWords } from '../../shared/anti-spam';
import { failed, ok, type Result } from '../../shared/result';
import * as zoned from '../../shared/booking/zoned';
import { fullDateLabel, timeRangeLabel } from '../../shared/time-format';
import { PAGES, managePath } from '../../shared/site-paths';
import { normalEmail } from '../../shared/email';
import { transaction } from '../platform/db';
import { readSetting } from '../platform/settings';
import { siteFacts } from '../platform/site-facts';
import { seeOther } from '../request/pages';
import { countRequest } from '../request/rate-limit';
import type { Problem } from '../request/responses';
import { answer, keptAsSpam, queue, type FormOutbox, type Received } from '../request/steps';
import { consultationSettings } from './consultation';
import { checkSlot, nearestTo } from './offer';
import {
  UpcomingCapReached,
  bookingBySubmission,
  capPassed,
  insertBooking,
  isSlotTaken,
  upcomingHeld,
  type UpcomingCaps,
  manageToken,
  type BookedSlot,
  type Booking,
} from './store';
import { bookingMails, type BookingMailKind } from './appointment-mail';
import { findRepeatOf, repeatOf, type AppointmentBooked } from './appointment-book';
import { releaseLapsedSessionHolds } from './session-store';

export type Booked = AppointmentBooked<Booking>;

/** A submission id already booked: its booking, or 409 (appointment-book.ts). */
export const findRepeat = (received: Received) =>
  findRepeatOf(received, (id) => bookingBySubmission(id));

/** The 409 of a slot no longer free, with the nearest free ones for the form to offer. */
export function slotTaken(nearest: OfferedSlot[]): Problem {
  return { status: 409, error: SLOT_TAKEN, details: { nearest } };
}

const CHOOSE = 'Please choose one of the times offered.';

/**
 * The checks of a booking before it is stored: the slot must be free now, and the address
 * within its daily limit and, unless the booking is spam, within the caps on consultations to
 * come. The slot as it will be held.
 */
export async function checkBooking(
  request: BookingRequest,
  received: Received,
): Promise<Result<BookedSlot, Problem>> {
  const slot = await checkSlot(request.slot, { later: received.later });
  if (!slot.ok) {
    return failed(
      slot.taken
        ? slotTaken(slot.nearest)
        : { status: 422, error: CHOOSE, fieldErrors: { slot: CHOOSE } },
    );
  }
  const rule = readSetting('CONSULTATION_EMAIL_LIMIT');
  const verdict = await countRequest('booking-email', normalEmail(request.email), rule);
  if (!verdict.allowed) {
    const wait = verdict.retryAfterSeconds;
    return failed({
      status: 429,
      error: `Too many consultations have been booked for this e-mail address. Please try again in ${waitInWords(wait)}, or write to the studio.`,
      headers: { 'retry-after': String(wait) },
    });
  }
  if (!received.spam) {
    const passed = capPassed(await upcomingHeld(request.email, received.client.ip), upcomingCaps());
    if (passed) return failed(capProblem(passed));
  }
  return ok(slot.slot);
}

/** How many consultations to come one mailbox, and one network, may hold (the settings). */
export function upcomingCaps(): UpcomingCaps {
  return {
    mailbox: readSetting('CONSULTATION_UPCOMING_PER_EMAIL'),
    network: readSetting('CONSULTATION_UPCOMING_PER_NETWORK'),
  };
}

/** The refusal of a booking past a cap, in words the visitor can act on. */
export function capProblem(cap: 'mailbox' | 'network'): Problem {
  const studio = siteFacts().email;
  const { mailbox } = upcomingCaps();
  return {
    status: 409,
    error:
      cap === 'mailbox'
        ? `This e-mail address already has ${mailbox === 1 ? 'a consultation' : `${mailbox} consultations`} booked, as many as one person can hold at once. To choose another time, move one with the link in its confirmation e-mail, or write to the studio at ${studio}.`
        : `Several consultations to come have already been booked from your network (your home, office or mobile connection), as many as we take from one place. Please write to the studio at ${studio} to book yours.`,
  };
}

/**
 * Stores the booking and queues its mails in one transaction. Postgres refuses a slot another
 * booking holds (a race lost: 409 with the nearest free slots now), and a mailbox or network
 * counted again at its cap under the transaction's locks (409). A submission id stored
 * meanwhile by the same request sent at once is answered as its repeat.
 */
export async function storeBooking(
  outbox: FormOutbox<BookingMailKind>,
  request: BookingRequest,
  received: Received,
  slot: BookedSlot,
): Promise<Result<Booked, Problem>> {
  try {
    return await transaction(async (tx) => {
      // A session's time whose checkout lapsed unpaid is free again before anything is stored.
      await releaseLapsedSessionHolds(tx);
      const stored = await insertBooking(tx, request, received, slot, upcomingCaps());
      if (!stored) {
        const earlier = await bookingBySubmission(received.submissionId, tx);
        if (!earlier) throw new Error('A booking was both stored and not found');
        return repeatOf(earlier, received);
      }
      const booked = { repeat: false as const, ...stored };
      if (received.spam) {
        keptAsSpam('booking', stored.booking.id, received.spam);
        return ok({ ...booked, queued: [] });
      }
      const queued = await queue(tx, outbox, bookingMails(stored.booking.id, slot.start, 0));
      return ok({ ...booked, queued });
    });
  } catch (error) {
    if (error instanceof UpcomingCapReached) return failed(capProblem(error.cap));
    if (isSlotTaken(error)) return failed(slotTaken(await nearestTo(request.slot)));
    throw error;
  }
}

export function summary(start: Date, end: Date, token: string): BookedSummary {
  const { timeZone, place } = consultationSettings();
  const from = zoned.instantOf(start);
  return {
    start: start.toISOString(),
    end: end.toISOString(),
    day: fullDateLabel(from, timeZone),
    time: timeRangeLabel(from, zoned.instantOf(end), timeZone),
    place:
      place.kind === 'studio'
        ? `${place.label}: ${place.address}`
        : `${place.label}: ${place.link}`,
    manage: managePath(token),
  };
}

/** Where a repeated post without script goes: a page that says it is booked, without its link. */
export const REPEAT_PAGE = `${PAGES.manage}?repeat=1`;

/**
 * The answer to a booking: when and where, and the page to manage it (a post without script is
 * sent there). A post without script has no id of its own, only one made of its fields, its
 * network and the day, which anyone on that network who knows the fields can make again: its
 * repeat is told the booking stands and that its link is in the confirmation mail, and never
 * given the link.
 */
export function answerBooking(booked: Booked, received: Received): Response {
  if (booked.repeat && received.format === 'form') return seeOther(REPEAT_PAGE);
  const { start, end } = booked.booking;
  const token = booked.repeat ? manageToken(booked.booking) : booked.token;
  const booking = summary(start, end, token);
  return answer(received, `${booking.manage}&booked=1`, { booking });
}
