/**
 * The manage link of a private or in-home session, by the consultation's rules: what its page
 * shows (`sessionManageData`, read only: opening the link changes nothing, since mail scanners
 * open every link) and the POST that moves or cancels it (`changeSession`), within the
 * cancellation policy of content/booking.yaml: up to `cancelOrMoveHoursBefore` hours of real time
 * before the session, else refused with the policy's words. A change is one transaction that
 * also queues its mails (the new invite and reminder after a move, SEQUENCE raised; the
 * cancellations, METHOD:CANCEL, after a cancel); repeating it changes nothing more.
 */
import { slotSchemaFor } from '../../shared/booking/form';
import { timeLabel } from '../../shared/time-format';
import type { SessionManageData } from '../../shared/booking/session-form';
import { isToken } from '../platform/tokens';
import { now } from '../platform/clock';
import { siteFacts } from '../platform/site-facts';
import { transaction, type Queryable } from '../platform/db';
import { queue, type FormOutbox } from '../request/steps';
import { sessionPolicy, sessionType, withinPolicy } from './policy';
import { sessionSummary } from './session-book';
import { sessionMails, type SessionMailKind } from './appointment-mail';
import { checkSessionSlot, nearestSessions, sessionSlots } from './session-offer';
import { refundRest } from '../payments/store';
import { refundThenMail } from '../payments/refunds';
import { stripeAccount } from '../payments/stripe';
import {
  cancelSession,
  LAPSED_CHECKOUT,
  moveSession,
  sessionByToken,
  type SessionBooking,
} from './session-store';
import { isSlotTaken, mailRef } from './store';
import type { OfferedSlot } from '../../shared/booking/form';

export type SessionOutbox = FormOutbox<SessionMailKind | 'refund-refused'>;

/** Why a session can no longer be changed through its link, in the visitor's words. */
export function tooLate(email: string): string {
  const { hours } = sessionPolicy();
  return `This session starts in less than ${hours.cancelOrMoveHoursBefore} hours, so it can no longer be cancelled or moved here. ${hours.cancellationPolicy} Please write to the studio at ${email}.`;
}

export type ManageData = SessionManageData;

async function opened(token: unknown): Promise<SessionBooking | undefined> {
  return isToken(token) ? sessionByToken(token) : undefined;
}

/** What the manage page shows for `token` now. Reads only. */
export async function sessionManageData(
  token: unknown,
  studioEmail: string = siteFacts().email,
): Promise<ManageData> {
  const booking = await opened(token);
  if (!booking || typeof token !== 'string') return { found: false };
  const at = now();
  const { hours, timeZone } = sessionPolicy();
  const lapsed =
    booking.cancelledBy === LAPSED_CHECKOUT ||
    (booking.payment === 'held' && !booking.cancelledAt && (booking.holdExpiresAt ?? at) <= at);
  const held = booking.payment === 'held' && !booking.cancelledAt && !lapsed;
  const cancelled = booking.cancelledAt !== null || lapsed;
  const past = booking.start.getTime() <= at.getTime();
  // Held while its checkout is open: neither moved nor cancelled until Stripe has its word.
  const changeable = !cancelled && !past && !held && withinPolicy(booking.start, at, hours);
  const type = sessionType(booking.type);
  const days =
    changeable && type
      ? (await sessionSlots(type, { except: booking.id }))
          .map((day) => ({
            ...day,
            slots: day.slots.filter((slot) => Date.parse(slot.start) !== booking.start.getTime()),
          }))
          .filter((day) => day.slots.length > 0)
      : [];
  return {
    found: true,
    token,
    session: sessionSummary(booking, token),
    cancelled,
    past,
    changeable,
    ...(held
      ? { checkout: { state: 'held', until: timeLabel(booking.holdExpiresAt!, timeZone) } }
      : {}),
    ...(lapsed ? { checkout: { state: 'lapsed' } } : {}),
    policy: hours.cancellationPolicy,
    ...(!cancelled && !past && !held && !changeable ? { refusal: tooLate(studioEmail) } : {}),
    days,
  };
}

export type ChangeResult =
  | { ok: true; done: 'cancelled' | 'moved' | undefined }
  | { ok: false; status: number; error: string; nearest?: OfferedSlot[] };

/**
 * POST `action=cancel`, or `action=move` with a `slot`, for the session `token` opens: within
 * the policy, else refused (409) with its words. `deliver` sends the queued mails after the
 * answer.
 */
export async function changeSession(
  fields: Record<string, unknown>,
  outbox: SessionOutbox,
  studioEmail: string,
  deliver: (work: Promise<unknown>) => Promise<void> | void,
): Promise<ChangeResult> {
  const booking = await opened(fields.token);
  if (!booking) {
    return {
      ok: false,
      status: 404,
      error: 'This link does not open a booking. Please check it, or write to the studio.',
    };
  }
  const at = now();
  if (booking.cancelledAt) {
    // A cancel repeated changes nothing more; a move of a cancelled session is refused.
    return fields.action === 'cancel'
      ? { ok: true, done: undefined }
      : {
          ok: false,
          status: 409,
          error: 'This session was cancelled, so it can no longer be moved.',
        };
  }
  if (booking.payment === 'held') {
    return {
      ok: false,
      status: 409,
      error:
        'This session is waiting for your payment: it can be moved or cancelled once Stripe has confirmed it.',
    };
  }
  if (!withinPolicy(booking.start, at, sessionPolicy().hours)) {
    return { ok: false, status: 409, error: tooLate(studioEmail) };
  }
  if (fields.action === 'cancel') {
    const { ids, refunds } = await transaction(async (tx) => {
      const ids = await cancelAndTell(tx, outbox, booking.id, 'visitor');
      if (!ids) return { ids: [], refunds: [] };
      // Paid online and cancelled within the policy: what is left of it refunded, once.
      const refund = await refundRest(tx, 'session', booking.id, 'visitor', 'policy');
      return { ids, refunds: refund ? [refund] : [] };
    });
    await deliver(refundThenMail(stripeAccount(), refunds, ids, outbox));
    return { ok: true, done: 'cancelled' };
  }
  if (fields.action !== 'move') {
    return {
      ok: false,
      status: 400,
      error: 'The form could not be read. Please reload the page and try again.',
    };
  }
  const slot = slotSchemaFor('session').safeParse(fields.slot);
  const type = sessionType(booking.type);
  if (!slot.success || !type || Date.parse(slot.data) === booking.start.getTime()) {
    return { ok: false, status: 422, error: 'Please choose one of the times offered.' };
  }
  const checked = await checkSessionSlot(type, slot.data, { except: booking.id });
  if (!checked.ok) {
    return checked.taken
      ? {
          ok: false,
          status: 409,
          error: 'That time has just been taken. Please choose another one.',
          nearest: checked.nearest,
        }
      : { ok: false, status: 422, error: 'Please choose one of the times offered.' };
  }
  try {
    const ids = await transaction(async (tx) => {
      const sequence = await moveSession(tx, booking.id, checked.slot);
      if (sequence === undefined) return [];
      return queue(tx, outbox, sessionMails(booking.id, checked.slot.start, sequence));
    });
    if (ids.length > 0) await deliver(outbox.deliverNow(ids));
    return { ok: true, done: ids.length > 0 ? 'moved' : undefined };
  } catch (error) {
    if (!isSlotTaken(error)) throw error;
    return {
      ok: false,
      status: 409,
      error: 'That time has just been taken. Please choose another one.',
      nearest: await nearestSessions(type, slot.data, { except: booking.id }),
    };
  }
}

/**
 * Cancels a live session for `by` (the visitor, or her address on the desk) in the caller's
 * transaction and queues the two mails that say so: their outbox ids, or `undefined` when it was
 * cancelled already or is over (nothing changes).
 */
export async function cancelAndTell(
  tx: Queryable,
  outbox: Pick<FormOutbox<SessionMailKind>, 'enqueue'>,
  id: string,
  by: string,
  note: string | null = null,
): Promise<string[] | undefined> {
  const sequence = await cancelSession(tx, id, by, note);
  if (sequence === undefined) return undefined;
  const ref = mailRef(id, sequence);
  return queue(tx, outbox, [
    { kind: 'session-cancel-visitor', ref },
    { kind: 'session-cancel-studio', ref },
  ]);
}
