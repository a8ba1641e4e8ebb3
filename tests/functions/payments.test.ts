/**
 * Paying for a session online, on a real PostgreSQL server and a real SMTP server, with the real
 * `stripe` SDK talking to the stand-in that checks every request against Stripe's published
 * OpenAPI description (tests/fixtures/stripe.ts), and events signed with the SDK's own helper.
 * The studio's clock is the test's (never a sleep).
 *
 * No money without a place, no place without money: a place is held while its checkout is open
 * and confirmed only by Stripe's event, read again from Stripe; an event handled once, however
 * often and in whatever order it comes; a payment after its hold lapsed takes the place when it is
 * still free and is refunded, once, when it is not.
 */
import { resolve } from 'node:path';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import bookSession from '../../functions/book-session';
import stripeWebhook from '../../functions/stripe-webhook';
import { releaseLapsedSessionHolds } from '../../src/server/booking/session-payment';
import { advanceClock, now, setClock } from '../../src/server/platform/clock';
import { transaction } from '../../src/server/platform/db';
import { openCheckout } from '../../src/server/payments/checkout';
import { sendRefunds } from '../../src/server/payments/refunds';
import { stripeAccount } from '../../src/server/payments/stripe';
import { useFunctionEnv } from '../fixtures/function-env';
import { startStripeStandIn, type SignedEvent, type StripeStandIn } from '../fixtures/stripe';
import { sessionBody } from '../fixtures/submissions';
import { jsonPost } from './harness';

const env = useFunctionEnv();
const SITE = 'http://127.0.0.1:8888';
const STUDIO = 'studio-inbox@example.test';
// Monday 1 March 2027, 03:59 in Portland; Tuesday 9:00 PST is free (tests/functions/session-booking).
const NOW = new Date('2027-03-01T11:59:00Z');
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const HOLD_MS = 30 * 60_000;

let standIn: StripeStandIn;

beforeAll(async () => {
  standIn = await startStripeStandIn({ now });
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
  process.env.CONTACT_TO = STUDIO;
  process.env.SITE_URL = SITE;
  process.env.STRIPE_SECRET_KEY = 'sk_test_studio';
  process.env.STRIPE_WEBHOOK_SECRET = standIn.webhookSecret;
  process.env.STRIPE_API_URL = standIn.url;
});
afterAll(async () => {
  for (const name of [
    'PAGES_DIR',
    'CONTACT_TO',
    'SITE_URL',
    'STRIPE_SECRET_KEY',
    'STRIPE_WEBHOOK_SECRET',
    'STRIPE_API_URL',
  ]) {
    delete process.env[name];
  }
  await standIn?.close();
});
beforeEach(() => {
  setClock(NOW);
  standIn.reset();
});
afterEach(() => {
  setClock(undefined);
  expect(standIn.violations).toEqual([]);
});

const account = () => stripeAccount()!;

/**
 * A session booked with its place held for a checkout, as the booking form does when the studio
 * takes payments online: the row held until the checkout's end, no mail yet, the checkout open.
 */
async function heldSession(slot = TUESDAY_9, email = 'grace@example.test') {
  const answer = await bookSession(
    jsonPost(`${SITE}/api/book-session`, sessionBody('private', slot, { email })),
  );
  expect(answer.status).toBe(200);
  const { rows } = await env.db.query<{ id: string }>(
    `UPDATE session_bookings SET payment = 'held', hold_expires_at = $2
      WHERE lower(email) = $1 AND cancelled_at IS NULL RETURNING id`,
    [email, new Date(now().getTime() + HOLD_MS).toISOString()],
  );
  await env.db.query(`DELETE FROM mail_outbox`);
  env.smtp.mails.length = 0;
  const id = rows[0]!.id;
  const { payment, url } = await openCheckout(account(), {
    kind: 'session',
    bookingId: id,
    description: 'Private Sessions, Tuesday, March 2, 9:00 AM PST',
    amountCents: 12000,
    currency: 'usd',
    email,
    expiresAt: new Date(now().getTime() + HOLD_MS),
    successUrl: `${SITE}/book/paid?checkout={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${SITE}/book/private`,
  });
  return { id, checkout: payment.checkoutSession, url };
}

const deliver = (event: SignedEvent, signature = event.signature) =>
  stripeWebhook(
    new Request(`${SITE}/api/stripe-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: event.payload,
    }),
  );

async function booking(id: string) {
  const { rows } = await env.db.query<{
    payment: string;
    cancelled_at: Date | null;
    cancelled_by: string | null;
  }>(`SELECT payment, cancelled_at, cancelled_by FROM session_bookings WHERE id = $1`, [id]);
  return rows[0]!;
}

async function paymentState(checkout: string) {
  const { rows } = await env.db.query<{ state: string; payment_intent: string | null }>(
    `SELECT state, payment_intent FROM payments WHERE checkout_session = $1`,
    [checkout],
  );
  return rows[0]!;
}

describe('a place held while its checkout is open', () => {
  test('the checkout asks Stripe for the price stored on the booking, once, and expires with the hold', async () => {
    const { checkout, url } = await heldSession();
    const session = standIn.session(checkout);
    expect(session).toMatchObject({ amount_total: 12000, currency: 'usd', status: 'open' });
    expect(session.expires_at).toBe(Math.floor((NOW.getTime() + HOLD_MS) / 1000));
    expect(session.metadata).toMatchObject({ booking_kind: 'session' });
    expect(url).toBe(`${standIn.url}/pay/${checkout}`);
    const creates = standIn.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(creates.at(-1)?.idempotencyKey).toMatch(/^checkout:session:[0-9a-f-]{36}$/);
  });

  test('paid: confirmed by the event, read again from Stripe; the confirmation says what was paid', async () => {
    const { id, checkout } = await heldSession();
    // The visitor's return to the site proves nothing: the booking is still held.
    expect((await booking(id)).payment).toBe('held');
    const answer = await deliver(standIn.complete(checkout));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ received: true, outcome: 'paid' });
    expect(await booking(id)).toMatchObject({ payment: 'paid', cancelled_at: null });
    expect((await paymentState(checkout)).state).toBe('paid');
    await env.smtp.waitForMails(2);
    const visitor = env.smtp.mails.find((m) => m.envelope.to.includes('grace@example.test'))!;
    expect(visitor.text).toContain('Paid: $120');
    expect(visitor.text).not.toContain('Amount due');
  });

  test('the same event delivered twice, and twice at once, confirms once and mails once', async () => {
    const { id, checkout } = await heldSession();
    const event = standIn.complete(checkout);
    const answers = await Promise.all([deliver(event), deliver(event)]);
    const again = await deliver(event);
    const outcomes = await Promise.all([...answers, again].map((a) => a.json()));
    expect(outcomes.map((o) => o.outcome).sort()).toEqual([
      'already handled',
      'already handled',
      'paid',
    ]);
    expect((await booking(id)).payment).toBe('paid');
    const { rows } = await env.db.query<{ kind: string }>(`SELECT kind FROM mail_outbox`);
    expect(rows.filter((r) => r.kind === 'session-visitor')).toHaveLength(1);
  });

  test('an event whose body says paid while Stripe says otherwise confirms nothing', async () => {
    const { id, checkout } = await heldSession();
    const forged = standIn.event('checkout.session.completed', {
      ...standIn.session(checkout),
      payment_status: 'paid',
      status: 'complete',
    } as never);
    const answer = await deliver(forged);
    expect(await answer.json()).toMatchObject({ outcome: 'ignored: Stripe says unpaid' });
    expect((await booking(id)).payment).toBe('held');
  });

  test('a signature that does not match is refused, and changes nothing', async () => {
    const { id, checkout } = await heldSession();
    const event = standIn.complete(checkout);
    const answer = await deliver(event, event.signature.replace(/v1=\w/, 'v1=0'));
    expect(answer.status).toBe(400);
    expect((await booking(id)).payment).toBe('held');
    expect(await env.count('stripe_events')).toBe(0);
  });
});

describe('no place without money', () => {
  test('an expired checkout releases its hold: the time is free again', async () => {
    const { id, checkout } = await heldSession();
    const answer = await deliver(standIn.expire(checkout));
    expect(await answer.json()).toMatchObject({ outcome: 'released' });
    expect(await booking(id)).toMatchObject({ cancelled_by: 'checkout' });
    expect((await paymentState(checkout)).state).toBe('expired');
    // Someone else books the same time.
    const other = await bookSession(
      jsonPost(
        `${SITE}/api/book-session`,
        sessionBody('private', TUESDAY_9, { email: 'ada@example.test' }),
      ),
    );
    expect(other.status).toBe(200);
  });

  test('a hold whose checkout lapsed with no event is released on the studio clock', async () => {
    const { id } = await heldSession();
    expect(await transaction(releaseLapsedSessionHolds)).toBe(0);
    advanceClock(HOLD_MS - 1_000);
    expect(await transaction(releaseLapsedSessionHolds)).toBe(0);
    advanceClock(2_000);
    expect(await transaction(releaseLapsedSessionHolds)).toBe(1);
    expect(await booking(id)).toMatchObject({ cancelled_by: 'checkout' });
  });
});

describe('no money without a place', () => {
  test('paid after the hold lapsed, the place still free: the booking is confirmed', async () => {
    const { id, checkout } = await heldSession();
    advanceClock(HOLD_MS + 1_000);
    await transaction(releaseLapsedSessionHolds);
    const answer = await deliver(standIn.complete(checkout));
    expect(await answer.json()).toMatchObject({ outcome: 'paid' });
    expect(await booking(id)).toMatchObject({ payment: 'paid', cancelled_at: null });
    expect(standIn.refunds()).toEqual([]);
  });

  test('paid after the hold lapsed and the time went to someone else: refunded in full, once, and told', async () => {
    const { id, checkout } = await heldSession();
    advanceClock(HOLD_MS + 1_000);
    await transaction(releaseLapsedSessionHolds);
    const taken = await bookSession(
      jsonPost(
        `${SITE}/api/book-session`,
        sessionBody('private', TUESDAY_9, { email: 'ada@example.test' }),
      ),
    );
    expect(taken.status).toBe(200);
    env.smtp.mails.length = 0;
    const event = standIn.complete(checkout);
    const answer = await deliver(event);
    expect(await answer.json()).toMatchObject({ outcome: 'paid after its place went: refunded' });
    // Delivered again later: nothing more.
    expect(await (await deliver(event)).json()).toMatchObject({ outcome: 'already handled' });
    expect(await booking(id)).toMatchObject({ payment: 'held', cancelled_by: 'checkout' });
    const refunds = standIn.refunds();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 12000, status: 'succeeded' });
    const { rows } = await env.db.query<{ state: string; stripe_refund: string }>(
      `SELECT state, stripe_refund FROM payment_refunds`,
    );
    expect(rows).toEqual([{ state: 'succeeded', stripe_refund: refunds[0]!.id }]);
    await env.smtp.waitForMails(1);
    const told = env.smtp.mails.find((m) => m.envelope.to.includes('grace@example.test'))!;
    expect(told.subject).toMatch(/^Refunded: your payment for /);
    expect(told.text).toContain('$120 has been refunded in full');
  });

  test('completed and expired events in either order: the payment wins, the later expiry changes nothing', async () => {
    const { id, checkout } = await heldSession();
    const completed = standIn.complete(checkout);
    const expired = standIn.event('checkout.session.expired', {
      ...standIn.session(checkout),
      status: 'expired',
    } as never);
    await deliver(completed);
    expect(await (await deliver(expired)).json()).toMatchObject({
      outcome: 'ignored: already paid',
    });
    expect(await booking(id)).toMatchObject({ payment: 'paid', cancelled_at: null });
  });
});

describe('refunds', () => {
  test('a refund Stripe did not answer stays pending and is sent again with the same key: made once', async () => {
    const { id, checkout } = await heldSession();
    advanceClock(HOLD_MS + 1_000);
    await transaction(releaseLapsedSessionHolds);
    await bookSession(
      jsonPost(
        `${SITE}/api/book-session`,
        sessionBody('private', TUESDAY_9, { email: 'ada@example.test' }),
      ),
    );
    standIn.failNext('/v1/refunds');
    await deliver(standIn.complete(checkout));
    expect(standIn.refunds()).toHaveLength(0);
    const { rows: pending } = await env.db.query<{ state: string; attempts: number }>(
      `SELECT state, attempts FROM payment_refunds`,
    );
    expect(pending).toEqual([{ state: 'pending', attempts: 1 }]);
    // Sent again, twice at once: Stripe makes one refund.
    await Promise.all([sendRefunds(account()), sendRefunds(account())]);
    expect(standIn.refunds()).toHaveLength(1);
    const keys = standIn.requests
      .filter((r) => r.path === '/v1/refunds')
      .map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(1);
    expect((await booking(id)).payment).toBe('held');
  });

  test('never more refunded than was paid, whatever is asked', async () => {
    const { checkout } = await heldSession();
    await deliver(standIn.complete(checkout));
    const { rows } = await env.db.query<{ id: string }>(`SELECT id FROM payments`);
    const insert = (key: string, cents: number) =>
      env.db.query(
        `INSERT INTO payment_refunds (id, payment_id, amount_cents, reason, requested_by, idempotency_key)
         VALUES (gen_random_uuid(), $1, $2, 'studio', 'studio@example.test', $3)`,
        [rows[0]!.id, cents, key],
      );
    await insert('a', 7000);
    await expect(insert('b', 6000)).rejects.toThrow(/exceed what was paid/);
    await insert('c', 5000);
  });

  test('Stripe down when a checkout would open: the SDK says so, nothing is recorded', async () => {
    standIn.failNext('/v1/checkout/sessions');
    await expect(heldSession()).rejects.toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(await env.count('payments')).toBe(0);
  });
});
