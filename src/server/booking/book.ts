/**
 * What is particular to the booking form in the one form pipeline (request/pipeline.ts): the
 * slot must be offered right now (else 409 with the nearest free ones), an e-mail address books
 * only so often (429), the row's insert may meet the database's refusal of a taken slot (409
 * again, the race lost), the mails it owes (the invites now, the reminder a day before), and an
 * answer that says when and where, with the link to change or cancel.
 */
import {
  MANAGE_PAGE,
  SLOT_TAKEN,
  type BookedSummary,
  type BookingRequest,
  type OfferedSlot,
} from '../../shared/booking/form';
import { waitInWords } from '../../shared/anti-spam';
import { failed, ok, type Result } from '../../shared/result';
import * as zoned from '../../shared/booking/zoned';
import { normalEmail } from '../auth/staff';
import { now } from '../platform/clock';
import { readSetting } from '../platform/settings';
import { siteFacts } from '../platform/site-facts';
import type { QueuedMail, Received } from '../request/pipeline';
import { countRequest } from '../request/rate-limit';
import type { Problem } from '../request/responses';
import { consultationSettings } from './consultation';
import { checkSlot, nearestTo } from './offer';
import {
  UpcomingCapReached,
  bookingBySubmission,
  capPassed,
  isSlotTaken,
  upcomingHeld,
  type UpcomingCaps,
  loadBooking,
  mailRef,
  manageToken,
  type BookedSlot,
} from './store';

const DAY_MS = 24 * 3_600_000;

/** The kinds of mail about a booking (their composers: mail.ts, listed in mail-kinds.ts). */
export type BookingMailKind =
  | 'booking-visitor'
  | 'booking-studio'
  | 'booking-cancel-visitor'
  | 'booking-cancel-studio'
  | 'booking-reminder';

export type Checked = { slot: BookedSlot } | { repeat: true };

/** The 409 of a slot no longer free, with the nearest free ones for the form to offer. */
export function slotTaken(nearest: OfferedSlot[]): Problem {
  return { status: 409, error: SLOT_TAKEN, details: { nearest } };
}

const CHOOSE = 'Please choose one of the times offered.';

/**
 * The checks of a booking before it is stored: a repeated submission passes at once (it stores
 * nothing more and is answered like the first); otherwise the slot must be free now, and the
 * address within its limit.
 */
export async function checkBooking(
  request: BookingRequest,
  _format: unknown,
  received: Received,
): Promise<Result<Checked, Problem>> {
  if (await bookingBySubmission(received.submissionId)) return ok({ repeat: true });
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
  return ok({ slot: slot.slot });
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

/** The mails of a new booking: both invites now, and the reminder a day before if there is one. */
export function bookingMails(
  id: string,
  start: Date,
  sequence: number,
): QueuedMail<BookingMailKind>[] {
  const ref = mailRef(id, sequence);
  const remindAt = new Date(start.getTime() - DAY_MS);
  return [
    { kind: 'booking-visitor', ref },
    { kind: 'booking-studio', ref },
    // Booked less than a day ahead: the confirmation is reminder enough.
    ...(remindAt.getTime() > now().getTime()
      ? [{ kind: 'booking-reminder' as const, ref, notBefore: remindAt }]
      : []),
  ];
}

/** A lost race for the slot (the database refused it): 409 with the nearest free slots now. */
export async function bookingConflict(
  error: unknown,
  request: BookingRequest,
): Promise<Problem | undefined> {
  if (error instanceof UpcomingCapReached) return capProblem(error.cap);
  if (!isSlotTaken(error)) return undefined;
  return slotTaken(await nearestTo(request.slot));
}

/** The page of a booking, relative to the site (the answer's link, and the 303's target). */
export const managePath = (token: string) => `/consultation/manage?token=${token}`;

export function summary(start: Date, end: Date, token: string): BookedSummary {
  const { timeZone, place } = consultationSettings();
  const from = zoned.instantOf(start);
  return {
    start: start.toISOString(),
    end: end.toISOString(),
    day: zoned.fullDateLabel(from, timeZone),
    time: zoned.timeRangeLabel(from, zoned.instantOf(end), timeZone),
    place:
      place.kind === 'studio'
        ? `${place.label}: ${place.address}`
        : `${place.label}: ${place.link}`,
    manage: managePath(token),
  };
}

/** Where a repeated post without script goes: a page that says it is booked, without its link. */
export const REPEAT_PAGE = `${MANAGE_PAGE}?repeat=1`;

/**
 * What the answer to a stored booking carries: the booking, and the page to manage it (its
 * token opened from the row, as a mail composed later opens it). A repeat reaches here only as
 * the same request (the pipeline refused any other). A post without script has no id of its
 * own, only one made of its fields, its network and the day, which anyone on that network who
 * knows the fields can make again: its repeat is told the booking stands and that its link is
 * in the confirmation mail, and never given the link.
 */
export async function bookingAnswer(
  ref: string | undefined,
  _request: BookingRequest,
  received: Received,
) {
  if (!ref && received.format === 'form') return { location: REPEAT_PAGE };
  const booking = ref ? await loadBooking(ref) : await bookingBySubmission(received.submissionId);
  if (!booking) return {};
  const booked = summary(booking.start, booking.end, manageToken(booking));
  return { details: { booking: booked }, location: `${booked.manage}&booked=1` };
}
