/**
 * A private or in-home session paid online, when the studio's Stripe keys are set
 * (docs/payments.md): the time is stored as held (session-store.ts, `payment = 'held'`) for
 * `payOnlineHoldMinutes`, then Stripe Checkout is opened for the price stored on the booking
 * (payments/checkout.ts) and the visitor sent there. The booking is confirmed, and its mails
 * sent, when Stripe says it is paid (session-payment.ts).
 */
import type { Result } from '../../shared/result';
import { fullDateLabel, timeLabel } from '../../shared/time-format';
import { openHeldCheckout, payOnline } from '../payments/checkout';
import type { StripeAccount } from '../payments/stripe';
import type { Problem } from '../request/responses';
import { sessionPolicy } from './policy';
import {
  releaseSessionHold,
  sessionManagePath,
  sessionToken,
  type SessionBooking,
} from './session-store';

/**
 * Opens Stripe Checkout for a held session (`awaitsPayment`): where to send the visitor (a
 * repeated submission gets the same checkout). Stripe down: the hold is released and a 503 says
 * so in words.
 */
export function openSessionCheckout(
  account: StripeAccount,
  booking: SessionBooking,
): Promise<Result<string, Problem>> {
  const manage = `${booking.origin}${sessionManagePath(sessionToken(booking))}`;
  const { timeZone } = sessionPolicy();
  return openHeldCheckout(
    account,
    {
      kind: 'session',
      bookingId: booking.id,
      heldUntil: booking.holdExpiresAt!,
      description: `${booking.title}, ${fullDateLabel(booking.start, timeZone)}, ${timeLabel(booking.start, timeZone)}`,
      amountCents: booking.amountCents,
      email: booking.email,
      successUrl: `${manage}&paid=1`,
      cancelUrl: manage,
    },
    (tx) => releaseSessionHold(tx, booking.id),
  );
}

/** Whether a stored session still waits for its payment (a repeat of it opens its checkout). */
export const awaitsPayment = (booking: SessionBooking) =>
  booking.payment === 'held' && !booking.cancelledAt;

/**
 * The checkout of a session that waits for its payment (a repeat's too), with the studio's
 * Stripe keys set; `undefined` when it waits for none.
 */
export async function sessionCheckout(
  booking: SessionBooking,
): Promise<Result<string, Problem> | undefined> {
  const account = awaitsPayment(booking) ? payOnline(booking.amountCents) : undefined;
  return account && openSessionCheckout(account, booking);
}
