// The Stripe stand-in the payment tests talk to (tests/fixtures/stripe.ts): what it lets through
// is what Stripe's published OpenAPI description allows, and what the real SDK does with its
// answers is what it does with Stripe's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { startStripeStandIn, type StripeStandIn } from '../fixtures/stripe';

let standIn: StripeStandIn;
let stripe: Stripe;
const clock = { now: new Date('2026-11-26T12:00:00Z') };

beforeAll(async () => {
  standIn = await startStripeStandIn({ now: () => clock.now });
  stripe = new Stripe('sk_test_standin', standIn.sdkOptions);
});
afterAll(() => standIn?.close());

const checkout = (overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
  ({
    mode: 'payment',
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: 'usd',
          unit_amount: 12000,
          product_data: { name: 'Private Session' },
        },
      },
    ],
    success_url: 'http://127.0.0.1:8888/book/paid?session={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://127.0.0.1:8888/book/private',
    expires_at: Math.floor(clock.now.getTime() / 1000) + 30 * 60,
    metadata: { booking: 'b-1' },
    ...overrides,
  }) satisfies Stripe.Checkout.SessionCreateParams;

describe('the Stripe stand-in', () => {
  it('answers a checkout session the published description allows, and keeps it', async () => {
    const session = await stripe.checkout.sessions.create(checkout(), {
      idempotencyKey: 'create-1',
    });
    expect(session).toMatchObject({
      object: 'checkout.session',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: 12000,
      currency: 'usd',
      metadata: { booking: 'b-1' },
    });
    expect(session.url).toBe(`${standIn.url}/pay/${session.id}`);
    const again = await stripe.checkout.sessions.retrieve(session.id);
    expect(again.id).toBe(session.id);
    expect(standIn.violations).toEqual([]);
  });

  it('refuses, as Stripe would, a request its description does not allow, and says which', async () => {
    const bad = {
      ...checkout(),
      mode: 'paymnt',
      success_url: undefined,
    } as unknown as Stripe.Checkout.SessionCreateParams;
    const refused = await stripe.checkout.sessions.create(bad).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(standIn.violations.at(-1)?.errors.join(' ')).toMatch(/success_url|mode/);
    standIn.violations.length = 0;
  });

  it('answers a repeated idempotency key with the first answer, and refuses it with other parameters', async () => {
    const first = await stripe.checkout.sessions.create(checkout(), { idempotencyKey: 'same' });
    const second = await stripe.checkout.sessions.create(checkout(), { idempotencyKey: 'same' });
    expect(second.id).toBe(first.id);
    const changed = await stripe.checkout.sessions
      .create(checkout({ metadata: { booking: 'b-2' } }), { idempotencyKey: 'same' })
      .catch((error: unknown) => error);
    expect(changed).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it('completes a session as a payment on the hosted page would, with an event the SDK verifies', async () => {
    const session = await stripe.checkout.sessions.create(checkout());
    const event = standIn.complete(session.id);
    // Signed at the stand-in's clock, checked at the same moment (the site passes its own clock).
    const at = Math.floor(clock.now.getTime() / 1000);
    const verified = stripe.webhooks.constructEvent(
      event.payload,
      event.signature,
      standIn.webhookSecret,
      undefined,
      undefined,
      at,
    );
    expect(verified.type).toBe('checkout.session.completed');
    const paid = await stripe.checkout.sessions.retrieve(session.id, {
      expand: ['payment_intent'],
    });
    expect(paid.payment_status).toBe('paid');
    const intent = paid.payment_intent as Stripe.PaymentIntent;
    expect(intent.amount_received).toBe(12000);
    // A tampered signature is refused by the SDK.
    expect(() =>
      stripe.webhooks.constructEvent(
        event.payload.replace('12000', '1'),
        event.signature,
        standIn.webhookSecret,
        undefined,
        undefined,
        at,
      ),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it("reports Stripe's fee on the charge's balance transaction, expanded from the PaymentIntent; later when Stripe makes it later", async () => {
    const feeOf = async (intentId: string) => {
      const intent = await stripe.paymentIntents.retrieve(intentId, {
        expand: ['latest_charge.balance_transaction'],
      });
      const charge = intent.latest_charge as Stripe.Charge;
      expect(charge.payment_intent).toBe(intentId);
      return charge.balance_transaction as Stripe.BalanceTransaction | null;
    };
    const now = await stripe.checkout.sessions.create(checkout());
    standIn.complete(now.id);
    const txn = await feeOf(
      String((await stripe.checkout.sessions.retrieve(now.id)).payment_intent),
    );
    // Stripe's example balance transaction (fixtures3.json) reports a fee of 0.
    expect(txn).toMatchObject({
      object: 'balance_transaction',
      amount: 12000,
      fee: 378,
      net: 11622,
    });

    const later = await stripe.checkout.sessions.create(checkout());
    standIn.complete(later.id, { balanceLater: true });
    const intentId = String((await stripe.checkout.sessions.retrieve(later.id)).payment_intent);
    expect(await feeOf(intentId)).toBeNull();
    expect(JSON.parse(standIn.settle(intentId).payload)).toMatchObject({ type: 'charge.updated' });
    expect(await feeOf(intentId)).toMatchObject({ fee: 378, amount: 12000 });
    expect(standIn.violations).toEqual([]);
  });

  it('refunds once: a second full refund of the same payment is refused', async () => {
    const session = await stripe.checkout.sessions.create(checkout());
    standIn.complete(session.id);
    const paid = await stripe.checkout.sessions.retrieve(session.id);
    const refund = await stripe.refunds.create(
      { payment_intent: String(paid.payment_intent) },
      { idempotencyKey: `refund-${session.id}` },
    );
    expect(refund).toMatchObject({ amount: 12000, status: 'succeeded' });
    const retried = await stripe.refunds.create(
      { payment_intent: String(paid.payment_intent) },
      { idempotencyKey: `refund-${session.id}` },
    );
    expect(retried.id).toBe(refund.id);
    const twice = await stripe.refunds
      .create({ payment_intent: String(paid.payment_intent) }, { idempotencyKey: 'another' })
      .catch((error: unknown) => error);
    expect(twice).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  });

  it('expires an open session, and refuses an expiry too soon or a failing outage as Stripe does', async () => {
    const session = await stripe.checkout.sessions.create(checkout());
    const expired = await stripe.checkout.sessions.expire(session.id);
    expect(expired.status).toBe('expired');
    const tooSoon = await stripe.checkout.sessions
      .create(checkout({ expires_at: Math.floor(clock.now.getTime() / 1000) + 60 }))
      .catch((error: unknown) => error);
    expect(tooSoon).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    standIn.failNext('/v1/checkout/sessions');
    const outage = await stripe.checkout.sessions
      .create(checkout())
      .catch((error: unknown) => error);
    expect(outage).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(standIn.violations).toEqual([]);
  });
});
