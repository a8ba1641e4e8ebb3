/**
 * Opening Stripe Checkout for a booking whose place is held, for every kind of booking paid
 * online (a session, a class place): the amount is the price stored on the booking (taken from
 * content when it was made, never from the browser), the place is held for content's
 * `payOnlineHoldMinutes` (content/booking.yaml).
 *
 * One checkout per hold, however often it is asked for (a double click, a form sent twice, Back
 * and Pay again): the checkout already open for the hold is answered again from its row, and
 * Stripe is asked only when there is none, with a key and parameters that depend on the hold
 * alone (`expires_at` comes from the hold's end, not from the moment of asking), so that a repeat
 * reaching Stripe is answered with the same checkout. Stripe saying the key is in use by a
 * request still under way (a repeat on another instance) is waited out a little: an idempotency
 * answer is never a reason to release a place. Stripe unreachable or failing: the hold is
 * released at once and the visitor told, nothing booked.
 */
import Stripe from 'stripe';
import { failed, ok, type Result } from '../../shared/result';
import { sessionPolicy } from '../booking/policy';
import { now } from '../platform/clock';
import { transaction, type Queryable } from '../platform/db';
import type { Problem } from '../request/responses';
import { answer, type Received } from '../request/steps';
import { isStripeOutage, stripeAccount, type StripeAccount } from './stripe';
import type { PayableKind } from '../../shared/desk-api';
import { openCheckoutOf, recordCheckout, type Payment } from './store';

const MINUTE = 60_000;

/**
 * How long Stripe's page stays open: Stripe's shortest, 30 minutes, and a minute for the time
 * between our clock and Stripe's. The place itself is held for `payOnlineHoldMinutes` of it; a
 * payment after that still gets the place if it is free, and is refunded if not.
 */
const CHECKOUT_OPEN_MS = 31 * MINUTE;

export const PAYMENT_UNAVAILABLE =
  'Online payment is not available just now, so nothing was booked. Please try again in a few minutes.';

/** A repeat that found its checkout still being opened elsewhere, after waiting for it. */
export const PAYMENT_OPENING =
  'Your payment page is still being opened. Please press the button again in a moment: your place stays held meanwhile.';

/** How long a repeat waits, in turn, for a checkout another request is opening (about 3 s in all). */
const OPENING_WAITS_MS = [100, 300, 600, 1000, 1000];

/** The studio's Stripe account when `price` (more than nothing) is paid online: the keys set. */
export function payOnline(price: number): StripeAccount | undefined {
  const account = stripeAccount();
  return account && price > 0 ? account : undefined;
}

/** Until when a place is held for a visitor who is paying. */
export const holdUntil = () =>
  new Date(now().getTime() + sessionPolicy().hours.payOnlineHoldMinutes * MINUTE);

export interface CheckoutFor {
  kind: PayableKind;
  bookingId: string;
  /** When the booking's hold lapses: the checkout's own end, and its key, follow from it. */
  heldUntil: Date;
  /** What the visitor sees on Stripe's page, e.g. "Private Session, Tue, Mar 2, 9:00 AM". */
  description: string;
  amountCents: number;
  email: string;
  /** Where Stripe sends the visitor back: paid, or not. */
  successUrl: string;
  cancelUrl: string;
}

/** The idempotency key of the checkout of one hold: a new hold of the same booking, a new key. */
export const checkoutKey = (checkout: Pick<CheckoutFor, 'kind' | 'bookingId' | 'heldUntil'>) =>
  `checkout:${checkout.kind}:${checkout.bookingId}:${checkout.heldUntil.getTime()}`;

/** When Stripe's page of a hold closes: as long after the hold began as Stripe's page stays open. */
function checkoutEnd(heldUntil: Date): Date {
  const heldFor = sessionPolicy().hours.payOnlineHoldMinutes * MINUTE;
  return new Date(heldUntil.getTime() - heldFor + CHECKOUT_OPEN_MS);
}

/** The Checkout Session opened for the hold, recorded; its `url` is where the visitor pays. */
export async function openCheckout(
  account: StripeAccount,
  checkout: CheckoutFor,
): Promise<{ payment: Payment; url: string }> {
  const expiresAt = checkoutEnd(checkout.heldUntil);
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
    { idempotencyKey: checkoutKey(checkout) },
  );
  if (!session.url) throw new Error(`Stripe opened checkout ${session.id} without a page`);
  const url = session.url;
  const payment = await transaction((tx) =>
    recordCheckout(tx, {
      bookingKind: checkout.kind,
      bookingId: checkout.bookingId,
      checkoutSession: session.id,
      checkoutUrl: url,
      amountCents: checkout.amountCents,
      currency: 'usd',
      expiresAt,
    }),
  );
  return { payment, url };
}

/**
 * Stripe's answer to a key used by a request still under way, or (never, with parameters made
 * from the hold alone) with other parameters: nothing was made for this request, and nothing is
 * wrong with the checkout the other one opens.
 */
function isKeyInUse(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeIdempotencyError ||
    (error instanceof Stripe.errors.StripeError && error.statusCode === 409)
  );
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens Stripe Checkout for a held booking: where to send the visitor. Asked again for the same
 * hold, the checkout already open (see the file's comment). Stripe down: `release` gives the hold
 * back and a 503 says so in words.
 */
export async function openHeldCheckout(
  account: StripeAccount,
  checkout: CheckoutFor,
  release: (tx: Queryable) => Promise<unknown>,
): Promise<Result<string, Problem>> {
  for (let attempt = 0; ; attempt += 1) {
    const open = await openCheckoutOf(checkout.kind, checkout.bookingId);
    if (open) return ok(open);
    try {
      return ok((await openCheckout(account, checkout)).url);
    } catch (error) {
      if (isKeyInUse(error)) {
        const pause = OPENING_WAITS_MS[attempt];
        if (pause !== undefined) {
          await wait(pause);
          continue;
        }
        console.error(
          `checkout ${checkoutKey(checkout)}: still being opened elsewhere; the hold is kept`,
        );
        return failed({ status: 409, error: PAYMENT_OPENING, headers: { 'Retry-After': '5' } });
      }
      await transaction(release);
      if (!isStripeOutage(error)) throw error;
      return failed({ status: 503, error: PAYMENT_UNAVAILABLE, headers: { 'Retry-After': '60' } });
    }
  }
}

/** Sends the visitor to Stripe's page: a 303 without script, its address in the JSON answer. */
export function answerCheckout(received: Received, url: string): Response {
  return answer(received, url, { checkout: url });
}
