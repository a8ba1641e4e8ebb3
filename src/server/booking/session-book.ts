/**
 * The steps of booking a private or in-home session that are its own, called in order by
 * functions/book-session.ts between the steps every form takes (request/steps.ts):
 *
 *   checkSessionType (a type content offers, and the price posted, if any, its price in content,
 *   else 422, nothing stored) → findSessionRepeat (a submission id already booked: answered from
 *   its row, or 409 when sent with other details) → checkSession (a session at the visitor's
 *   address needs the address, in one of the areas she serves, 422; the time must be free now,
 *   else 409 with the nearest free ones) → storeSession (the row inserted and its mails queued in
 *   one transaction: the invites now, the reminder a day before; the database's refusal of held
 *   time is 409 again, the race lost) → answerSession (when, where, what is due and the policy,
 *   with the link to change or cancel).
 */
import {
  PRICE_CHANGED,
  UNKNOWN_SESSION,
  type SessionBookingRequest,
  type SessionSummary,
} from '../../shared/booking/session-form';
import * as zoned from '../../shared/booking/zoned';
import { failed, ok, type Result } from '../../shared/result';
import { oneOf } from '../../shared/one-session';
import { PAGES } from '../../shared/site-paths';
import { fullDateLabel, timeRangeLabel } from '../../shared/time-format';
import { transaction } from '../platform/db';
import { seeOther } from '../request/pages';
import type { Problem } from '../request/responses';
import { answer, keptAsSpam, queue, type FormOutbox, type Received } from '../request/steps';
import { slotTaken } from './book';
import { sessionPolicy, sessionType, servesArea, type SessionType } from './policy';
import { amountLine } from './session-mail';
import { checkSessionSlot, nearestSessions } from './session-offer';
import {
  insertSession,
  releaseLapsedSessionHolds,
  sessionBySubmission,
  sessionManagePath,
  sessionToken,
  type SessionBooking,
  type SessionSlot,
} from './session-store';
import { isSlotTaken } from './store';
import { sessionMails, type SessionMailKind } from './appointment-mail';
import { findRepeatOf, repeatOf, type AppointmentBooked } from './appointment-book';

export type SessionBooked = AppointmentBooked<SessionBooking>;

const CHOOSE = 'Please choose one of the times offered.';
const STREET = 'Please enter the street address where the session takes place.';
const ZIP = 'Please enter a ZIP code of 5 digits, like 97202.';

/** The 422 of a field, nothing stored. */
const fieldProblem = (field: string, error: string): Problem => ({
  status: 422,
  error,
  fieldErrors: { [field]: error },
});

/** The words of an address outside the areas she serves: which ZIP codes she does. */
export function outsideAreas(type: SessionType): string {
  return `In-home sessions are offered in the ZIP codes ${type.areas.join(', ')}. For another area, please write to the studio.`;
}

/** The session type booked, from content; the price posted, if any, must be its price there. */
export function checkSessionType(request: SessionBookingRequest): Result<SessionType, Problem> {
  const type = sessionType(request.sessionType);
  if (!type) return failed(fieldProblem('sessionType', UNKNOWN_SESSION));
  if (
    request.price !== undefined &&
    Math.round(request.price * 100) !== Math.round(type.price * 100)
  ) {
    return failed(fieldProblem('price', PRICE_CHANGED));
  }
  return ok(type);
}

/** A submission id already booked: its session, or 409 (appointment-book.ts). */
export const findSessionRepeat = (received: Received) =>
  findRepeatOf(received, (id) => sessionBySubmission(id));

/**
 * The checks of a session booking before it is stored: a type of content's at its price
 * (`checkSessionType`); a session at the visitor's address needs a street and a ZIP code she
 * serves; the time must be free now. The type, and the time as it will be held.
 */
export async function checkSession(
  request: SessionBookingRequest,
  received: Received,
): Promise<Result<{ type: SessionType; slot: SessionSlot }, Problem>> {
  const known = checkSessionType(request);
  if (!known.ok) return known;
  const type = known.value;
  if (type.where === 'home') {
    if (!request.street) return failed(fieldProblem('street', STREET));
    if (!/^\s*\d{5}(-\d{4})?\s*$/.test(request.postalCode)) {
      return failed(fieldProblem('postalCode', ZIP));
    }
    if (!servesArea(type, request.postalCode)) {
      return failed(fieldProblem('postalCode', outsideAreas(type)));
    }
  }
  const slot = await checkSessionSlot(type, request.slot, { later: received.later });
  if (!slot.ok) return failed(slot.taken ? slotTaken(slot.nearest) : fieldProblem('slot', CHOOSE));
  return ok({ type, slot: slot.slot });
}

/**
 * Stores the session and queues its mails in one transaction. Postgres refuses time another
 * booking of any kind holds (a race lost: 409 with the nearest free times now). A submission id
 * stored meanwhile by the same request sent at once is answered as its repeat.
 */
export async function storeSession(
  outbox: FormOutbox<SessionMailKind>,
  request: SessionBookingRequest,
  received: Received,
  type: SessionType,
  slot: SessionSlot,
  holdUntil?: Date,
): Promise<Result<SessionBooked, Problem>> {
  try {
    return await transaction(async (tx) => {
      // A time whose checkout lapsed unpaid is free again before anything is stored.
      await releaseLapsedSessionHolds(tx);
      const stored = await insertSession(tx, request, received, type, slot, holdUntil);
      if (!stored) {
        const earlier = await sessionBySubmission(received.submissionId, tx);
        if (!earlier) throw new Error('A session was both stored and not found');
        return repeatOf(earlier, received);
      }
      const booked = { repeat: false as const, ...stored };
      if (received.spam) {
        keptAsSpam('session', stored.booking.id, received.spam);
        return ok({ ...booked, queued: [] });
      }
      // A time held while the visitor pays is told about when Stripe says it is paid.
      if (holdUntil) return ok({ ...booked, queued: [] });
      const queued = await queue(tx, outbox, sessionMails(stored.booking.id, slot.start, 0));
      return ok({ ...booked, queued });
    });
  } catch (error) {
    if (!isSlotTaken(error)) throw error;
    return failed(slotTaken(await nearestSessions(type, request.slot)));
  }
}

/** The session as the visitor reads it back. */
export function sessionSummary(booking: SessionBooking, token: string): SessionSummary {
  const { timeZone, studioAddress, hours } = sessionPolicy();
  const from = zoned.instantOf(booking.start);
  return {
    title: oneOf(booking.title),
    start: booking.start.toISOString(),
    end: booking.end.toISOString(),
    day: fullDateLabel(from, timeZone),
    time: timeRangeLabel(from, zoned.instantOf(booking.end), timeZone),
    place:
      booking.place === 'home'
        ? `At your address: ${booking.street ?? ''}, ${booking.postalCode ?? ''}`
        : `At the studio: ${studioAddress}`,
    due: amountLine(booking),
    policy: hours.cancellationPolicy,
    manage: sessionManagePath(token),
  };
}

/** Where a repeated post without script goes: a page that says it is booked, without its link. */
export const SESSION_REPEAT_PAGE = `${PAGES.sessionManage}?repeat=1`;

/**
 * The answer to a session: when, where, what is due and the policy, and the page to manage it
 * (a post without script is sent there). A post without script that repeats one is told it
 * stands and never given its link (as for the consultation).
 */
export function answerSession(booked: SessionBooked, received: Received): Response {
  if (booked.repeat && received.format === 'form') return seeOther(SESSION_REPEAT_PAGE);
  const token = booked.repeat ? sessionToken(booked.booking) : booked.token;
  const booking = sessionSummary(booked.booking, token);
  return answer(received, `${booking.manage}&booked=1`, { booking });
}
