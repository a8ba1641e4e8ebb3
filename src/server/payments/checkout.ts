/**
 * Opening Stripe Checkout for a booking whose place is held: the amount is the price stored on the
 * booking (taken from content when it was made, never from the browser), the session expires when
 * the hold does, and the create call carries the booking's own idempotency key, so a retried
 * request opens the same checkout, never a second one.
 */
import { transaction } from '../platform/db';
import type { StripeAccount } from './stripe';
import { recordCheckout, type BookingKind, type Payment } from './store';

export interface CheckoutFor {
  kind: BookingKind;
  bookingId: string;
  /** What the visitor sees on Stripe's page, e.g. "Private Session, Tue, Mar 2, 9:00 AM". */
  description: string;
  amountCents: number;
  currency: string;
  email: string;
  /** When the hold ends: Stripe allows 30 minutes to 24 hours from now. */
  expiresAt: Date;
  /** Where Stripe sends the visitor back: paid, or not. */
  successUrl: string;
  cancelUrl: string;
}

/** The Checkout Session opened, recorded; its `url` is where the visitor pays. */
export async function openCheckout(
  account: StripeAccount,
  checkout: CheckoutFor,
): Promise<{ payment: Payment; url: string }> {
  const session = await account.stripe.checkout.sessions.create(
    {
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: checkout.currency,
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
      expires_at: Math.floor(checkout.expiresAt.getTime() / 1000),
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
      currency: checkout.currency,
      expiresAt: checkout.expiresAt,
    }),
  );
  return { payment, url: session.url };
}
