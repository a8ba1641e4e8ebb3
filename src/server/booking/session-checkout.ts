/**
 * A private or in-home session paid online, when the studio's Stripe keys are set
 * (docs/payments.md): the time is stored as held (session-store.ts, `payment = 'held'`) for
 * `payOnlineHoldMinutes`, then Stripe Checkout is opened for the price stored on the booking and
 * the visitor sent there. The booking is confirmed, and its mails sent, when Stripe says it is
 * paid (session-payment.ts). Stripe unreachable: the hold is released at once and the visitor told,
 * nothing booked.
 */
import { failed, ok, type Result } from '../../shared/result';
import { fullDateLabel, timeLabel } from '../../shared/time-format';
import { openCheckout } from '../payments/checkout';
import { isStripeOutage, stripeAccount, type StripeAccount } from '../payments/stripe';
import { now } from '../platform/clock';
import { transaction } from '../platform/db';
import type { Problem } from '../request/responses';
import { answer, type Received } from '../request/steps';
import { sessionPolicy, type SessionType } from './policy';
import {
  releaseSessionHold,
  sessionManagePath,
  sessionToken,
  type SessionBooking,
} from './session-store';

const MINUTE = 60_000;

/**
 * How long Stripe's page stays open: Stripe's shortest, 30 minutes, and a minute for the time
 * between our clock and Stripe's. The time itself is held for `payOnlineHoldMinutes` of it; a
 * payment after that still gets the time if it is free, and is refunded if not.
 */
const CHECKOUT_OPEN_MS = 31 * MINUTE;

export const PAYMENT_UNAVAILABLE =
  'Online payment is not available just now, so nothing was booked. Please try again in a few minutes.';

/** The studio's Stripe account when `type` is paid online: keys set and a price to pay. */
export function payOnline(type: SessionType): StripeAccount | undefined {
  const account = stripeAccount();
  return account && type.price > 0 ? account : undefined;
}

/** Until when a time is held for a visitor who is paying. */
export const holdUntil = () =>
  new Date(now().getTime() + sessionPolicy().hours.payOnlineHoldMinutes * MINUTE);

/**
 * Opens Stripe Checkout for a held session: where to send the visitor. Asked again for the same
 * booking (a repeated submission), Stripe answers the same checkout (the booking's idempotency
 * key). Stripe down: the hold is released and a 503 says so in words.
 */
export async function openSessionCheckout(
  account: StripeAccount,
  booking: SessionBooking,
): Promise<Result<string, Problem>> {
  const manage = `${booking.origin}${sessionManagePath(sessionToken(booking))}`;
  const { timeZone } = sessionPolicy();
  try {
    const { url } = await openCheckout(account, {
      kind: 'session',
      bookingId: booking.id,
      description: `${booking.title}, ${fullDateLabel(booking.start, timeZone)}, ${timeLabel(booking.start, timeZone)}`,
      amountCents: booking.amountCents,
      currency: 'usd',
      email: booking.email,
      expiresAt: new Date(now().getTime() + CHECKOUT_OPEN_MS),
      successUrl: `${manage}&paid=1`,
      cancelUrl: manage,
    });
    return ok(url);
  } catch (error) {
    await transaction((tx) => releaseSessionHold(tx, booking.id));
    if (!isStripeOutage(error)) throw error;
    return failed({ status: 503, error: PAYMENT_UNAVAILABLE, headers: { 'Retry-After': '60' } });
  }
}

/** Sends the visitor to Stripe's page: a 303 without script, its address in the JSON answer. */
export function answerCheckout(received: Received, url: string): Response {
  return answer(received, url, { checkout: url });
}

/** Whether a stored session still waits for its payment (a repeat of it opens its checkout). */
export const awaitsPayment = (booking: SessionBooking) =>
  booking.payment === 'held' && !booking.cancelledAt;
