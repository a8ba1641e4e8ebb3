/**
 * Opening Stripe Checkout for a booking whose place is held, for every kind of booking paid
 * online (a session, a class place): the amount is the price stored on the booking (taken from
 * content when it was made, never from the browser), the place is held for content's
 * `payOnlineHoldMinutes` (content/booking.yaml), and the create call carries the booking's own
 * idempotency key, so a retried request opens the same checkout, never a second one. Stripe
 * unreachable: the hold is released at once and the visitor told, nothing booked.
 */
import { failed, ok, type Result } from '../../shared/result';
import { sessionPolicy } from '../booking/policy';
import { now } from '../platform/clock';
import { transaction, type Queryable } from '../platform/db';
import type { Problem } from '../request/responses';
import { answer, type Received } from '../request/steps';
import { isStripeOutage, stripeAccount, type StripeAccount } from './stripe';
import { recordCheckout, type BookingKind, type Payment } from './store';

const MINUTE = 60_000;

/**
 * How long Stripe's page stays open: Stripe's shortest, 30 minutes, and a minute for the time
 * between our clock and Stripe's. The place itself is held for `payOnlineHoldMinutes` of it; a
 * payment after that still gets the place if it is free, and is refunded if not.
 */
const CHECKOUT_OPEN_MS = 31 * MINUTE;

export const PAYMENT_UNAVAILABLE =
  'Online payment is not available just now, so nothing was booked. Please try again in a few minutes.';

/** The studio's Stripe account when `price` (more than nothing) is paid online: the keys set. */
export function payOnline(price: number): StripeAccount | undefined {
  const account = stripeAccount();
  return account && price > 0 ? account : undefined;
}

/** Until when a place is held for a visitor who is paying. */
export const holdUntil = () =>
  new Date(now().getTime() + sessionPolicy().hours.payOnlineHoldMinutes * MINUTE);

export interface CheckoutFor {
  kind: BookingKind;
  bookingId: string;
  /** What the visitor sees on Stripe's page, e.g. "Private Session, Tue, Mar 2, 9:00 AM". */
  description: string;
  amountCents: number;
  email: string;
  /** Where Stripe sends the visitor back: paid, or not. */
  successUrl: string;
  cancelUrl: string;
}

/** The Checkout Session opened, recorded; its `url` is where the visitor pays. */
export async function openCheckout(
  account: StripeAccount,
  checkout: CheckoutFor,
): Promise<{ payment: Payment; url: string }> {
  const expiresAt = new Date(now().getTime() + CHECKOUT_OPEN_MS);
  const session = await account.stripe.checkout.sessions.create(
    {
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: checkout.amountCents,
            product_data: { name: checkout.description },
          },
        },
      ],
      customer_email: checkout.email,
      client_reference_id: checkout.bookingId,
      metadata: { booking_kind: checkout.kind, booking_id: checkout.bookingId },
      payment_intent_data: {
        metadata: { booking_kind: checkout.kind, booking_id: checkout.bookingId },
      },
      expires_at: Math.floor(expiresAt.getTime() / 1000),
      success_url: checkout.successUrl,
      cancel_url: checkout.cancelUrl,
    },
    { idempotencyKey: `checkout:${checkout.kind}:${checkout.bookingId}` },
  );
  if (!session.url) throw new Error(`Stripe opened checkout ${session.id} without a page`);
  const payment = await transaction((tx) =>
    recordCheckout(tx, {
      bookingKind: checkout.kind,
      bookingId: checkout.bookingId,
      checkoutSession: session.id,
      amountCents: checkout.amountCents,
      currency: 'usd',
      expiresAt,
    }),
  );
  return { payment, url: session.url };
}

/**
 * Opens Stripe Checkout for a held booking: where to send the visitor. Asked again for the same
 * booking (a repeated submission), Stripe answers the same checkout (the booking's idempotency
 * key). Stripe down: `release` gives the hold back and a 503 says so in words.
 */
export async function openHeldCheckout(
  account: StripeAccount,
  checkout: CheckoutFor,
  release: (tx: Queryable) => Promise<unknown>,
): Promise<Result<string, Problem>> {
  try {
    return ok((await openCheckout(account, checkout)).url);
  } catch (error) {
    await transaction(release);
    if (!isStripeOutage(error)) throw error;
    return failed({ status: 503, error: PAYMENT_UNAVAILABLE, headers: { 'Retry-After': '60' } });
  }
}

/** Sends the visitor to Stripe's page: a 303 without script, its address in the JSON answer. */
export function answerCheckout(received: Received, url: string): Response {
  return answer(received, url, { checkout: url });
}
