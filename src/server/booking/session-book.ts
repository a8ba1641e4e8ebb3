/**
 * What is particular to the session booking form in the one form pipeline (request/pipeline.ts):
 * the session type must be one content offers and the price posted (if any) its price in content
 * (else 422, nothing stored); a session at the visitor's address needs the address, in one of the
 * areas she serves (422); the time must be free now (else 409 with the nearest free ones); the
 * insert may meet the database's refusal of held time (409 again, the race lost); the mails it
 * owes (the invites now, the reminder a day before); and an answer that says when, where, what is
 * due and the policy, with the link to change or cancel.
 */
import type { OfferedSlot } from '../../shared/booking/form';
import {
  PRICE_CHANGED,
  SESSION_MANAGE_PAGE,
  UNKNOWN_SESSION,
  type SessionBookingRequest,
  type SessionSummary,
} from '../../shared/booking/session-form';
import * as zoned from '../../shared/booking/zoned';
import { OTHER_REQUEST, SLOT_TAKEN } from '../../shared/form-answer';
import { failed, ok, type Result } from '../../shared/result';
import { now } from '../platform/clock';
import type { QueuedMail, Received } from '../request/pipeline';
import type { Problem } from '../request/responses';
import { sessionPolicy, sessionType, servesArea, type SessionType } from './policy';
import { amountLine } from './session-mail';
import { checkSessionSlot, nearestSessions } from './session-offer';
import {
  OtherRequest,
  loadSession,
  sessionBySubmission,
  sessionManagePath,
  sessionToken,
  type SessionBooking,
  type SessionSlot,
} from './session-store';
import { isSlotTaken, mailRef } from './store';

const DAY_MS = 24 * 3_600_000;

export type SessionMailKind =
  | 'session-visitor'
  | 'session-studio'
  | 'session-cancel-visitor'
  | 'session-cancel-studio'
  | 'session-reminder';

export type SessionChecked = { type: SessionType; slot: SessionSlot } | { repeat: true };

const CHOOSE = 'Please choose one of the times offered.';
const STREET = 'Please enter the street address where the session takes place.';
const ZIP = 'Please enter a ZIP code of 5 digits, like 97202.';

/** The 422 of a field, nothing stored. */
const fieldProblem = (field: string, error: string): Problem => ({
  status: 422,
  error,
  fieldErrors: { [field]: error },
});

/** The 409 of a time no longer free, with the nearest free ones. */
const slotTaken = (nearest: OfferedSlot[]): Problem => ({
  status: 409,
  error: SLOT_TAKEN,
  details: { nearest },
});

/** The words of an address outside the areas she serves: which ZIP codes she does. */
export function outsideAreas(type: SessionType): string {
  return `In-home sessions are offered in the ZIP codes ${type.areas.join(', ')}. For another area, please write to the studio.`;
}

/**
 * The checks of a session booking before it is stored. A repeated submission passes at once (it
 * stores nothing more and is answered like the first).
 */
export async function checkSessionBooking(
  request: SessionBookingRequest,
  _format: unknown,
  received: Received,
): Promise<Result<SessionChecked, Problem>> {
  const type = sessionType(request.sessionType);
  if (!type) return failed(fieldProblem('sessionType', UNKNOWN_SESSION));
  if (
    request.price !== undefined &&
    Math.round(request.price * 100) !== Math.round(type.price * 100)
  ) {
    return failed(fieldProblem('price', PRICE_CHANGED));
  }
  const known = await sessionBySubmission(received.submissionId);
  if (known) {
    // The same request again is answered like the first; another under its id is told nothing.
    return known.requestSha256 === received.fingerprint
      ? ok({ repeat: true })
      : failed({ status: 409, error: OTHER_REQUEST });
  }
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

/** The mails of a new session: both invites now, and the reminder a day before if there is one. */
export function sessionMails(
  id: string,
  start: Date,
  sequence: number,
): QueuedMail<SessionMailKind>[] {
  const ref = mailRef(id, sequence);
  const remindAt = new Date(start.getTime() - DAY_MS);
  return [
    { kind: 'session-visitor', ref },
    { kind: 'session-studio', ref },
    ...(remindAt.getTime() > now().getTime()
      ? [{ kind: 'session-reminder' as const, ref, notBefore: remindAt }]
      : []),
  ];
}

/** A lost race for the time (the database refused it): 409 with the nearest free times now. */
export async function sessionConflict(
  error: unknown,
  request: SessionBookingRequest,
): Promise<Problem | undefined> {
  if (error instanceof OtherRequest) return { status: 409, error: OTHER_REQUEST };
  if (!isSlotTaken(error)) return undefined;
  const type = sessionType(request.sessionType);
  return slotTaken(type ? await nearestSessions(type, request.slot) : []);
}

/** The session as the visitor reads it back. */
export function sessionSummary(booking: SessionBooking, token: string): SessionSummary {
  const { timeZone, studioAddress, hours } = sessionPolicy();
  const from = zoned.instantOf(booking.start);
  return {
    title: booking.title,
    start: booking.start.toISOString(),
    end: booking.end.toISOString(),
    day: zoned.fullDateLabel(from, timeZone),
    time: zoned.timeRangeLabel(from, zoned.instantOf(booking.end), timeZone),
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
export const SESSION_REPEAT_PAGE = `${SESSION_MANAGE_PAGE}?repeat=1`;

/**
 * The answer to a stored session: the session, and the page to manage it. A post without
 * script that repeats one is told it stands, never given its link (as for the consultation).
 */
export async function sessionAnswer(
  ref: string | undefined,
  _request: SessionBookingRequest,
  received: Received,
) {
  if (!ref && received.format === 'form') return { location: SESSION_REPEAT_PAGE };
  const booking = ref ? await loadSession(ref) : await sessionBySubmission(received.submissionId);
  if (!booking) return {};
  const booked = sessionSummary(booking, sessionToken(booking));
  return { details: { booking: booked }, location: `${booked.manage}&booked=1` };
}
