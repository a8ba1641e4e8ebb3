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
import Stripe from 'stripe';
import { describe, expect, test, vi } from 'vitest';
import bookSession from '../../functions/book-session';
import sendRefundsNow from '../../functions/send-refunds';
import stripeWebhook from '../../functions/stripe-webhook';
import {
  loadSession,
  releaseLapsedSessionHolds,
  sessionToken,
} from '../../src/server/booking/session-store';
import { advanceClock, now, setClock } from '../../src/server/platform/clock';
import { transaction } from '../../src/server/platform/db';
import { useFunctionEnv } from '../fixtures/function-env';
import { renderPage } from '../fixtures/on-demand';
import { sessionBody } from '../fixtures/submissions';
import { formPost, jsonPost } from './harness';
import { useStripeSite } from './stripe-site';

const env = useFunctionEnv();
const SITE = 'http://127.0.0.1:8888';
const STUDIO = 'studio-inbox@example.test';
// Monday 1 March 2027, 03:59 in Portland; Tuesday 9:00 PST is free (tests/functions/session-booking).
const NOW = new Date('2027-03-01T11:59:00Z');
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const HOLD_MS = 30 * 60_000;

const stripe = useStripeSite({ site: SITE, studio: STUDIO, at: NOW });
const { deliver } = stripe;

/** A private session booked with the studio's keys set: its time held, Stripe's page to pay on. */
async function heldSession(slot = TUESDAY_9, email = 'grace@example.test') {
  const answer = await bookSession(
    jsonPost(`${SITE}/api/book-session`, sessionBody('private', slot, { email })),
  );
  expect(answer.status).toBe(200);
  const body = (await answer.json()) as { success: boolean; checkout: string };
  const checkout = /\/pay\/(cs_test_\w+)$/.exec(body.checkout)?.[1];
  expect(checkout, body.checkout).toBeDefined();
  const { rows } = await env.db.query<{ id: string }>(
    `SELECT id FROM session_bookings WHERE lower(email) = $1 AND cancelled_at IS NULL`,
    [email],
  );
  return { id: rows[0]!.id, checkout: checkout!, url: body.checkout };
}

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
  test("the session's page says it is paid online when booked, not at the studio", async () => {
    const html = await (await renderPage(new Request(`${SITE}/book/private`))).text();
    expect(html).toContain('$120, paid online when you book, on Stripe&#39;s secure page');
    expect(html).not.toContain('paid at the studio');
  });

  test('booked with the keys set: the time held, nothing mailed, Stripe asked for the price in content, once', async () => {
    const { id, checkout, url } = await heldSession();
    const { rows } = await env.db.query<{
      payment: string;
      hold_expires_at: Date;
      amount_cents: number;
    }>(`SELECT payment, hold_expires_at, amount_cents FROM session_bookings WHERE id = $1`, [id]);
    expect(rows[0]).toMatchObject({ payment: 'held', amount_cents: 12000 });
    expect(new Date(rows[0]!.hold_expires_at).getTime()).toBeGreaterThanOrEqual(
      NOW.getTime() + HOLD_MS,
    );
    expect(await env.count('mail_outbox')).toBe(0);
    const session = stripe.standIn.session(checkout);
    expect(session).toMatchObject({ amount_total: 12000, currency: 'usd', status: 'open' });
    expect(session.metadata).toMatchObject({ booking_kind: 'session', booking_id: id });
    expect(session.success_url).toMatch(
      /^http:\/\/127\.0\.0\.1:8888\/book\/manage\?token=[\w-]+&paid=1$/,
    );
    expect(url).toBe(`${stripe.standIn.url}/pay/${checkout}`);
    const creates = stripe.standIn.requests.filter((r) => r.path === '/v1/checkout/sessions');
    const heldUntil = new Date(rows[0]!.hold_expires_at).getTime();
    expect(creates.map((r) => r.idempotencyKey)).toEqual([`checkout:session:${id}:${heldUntil}`]);
    // The time is taken for everyone else while the checkout is open.
    const other = await bookSession(
      jsonPost(
        `${SITE}/api/book-session`,
        sessionBody('private', TUESDAY_9, { email: 'ada@example.test' }),
      ),
    );
    expect(other.status).toBe(409);
  });

  test("without script the form is answered with a 303 to Stripe's page; sent again, the same page", async () => {
    const fields = Object.fromEntries(
      Object.entries(sessionBody('private', TUESDAY_9)).map(([k, v]) => [k, String(v)]),
    );
    const first = await bookSession(formPost(`${SITE}/api/book-session`, fields));
    expect(first.status).toBe(303);
    const to = first.headers.get('location')!;
    expect(to).toMatch(new RegExp(`^${stripe.standIn.url}/pay/cs_test_\\w+$`));
    advanceClock(1_500);
    const again = await bookSession(formPost(`${SITE}/api/book-session`, fields));
    expect(again.headers.get('location')).toBe(to);
    expect(await env.count('session_bookings')).toBe(1);
    expect(await env.count('payments')).toBe(1);
  });

  test('the same booking sent again a moment later answers the checkout already open; the time stays held, and paying it confirms', async () => {
    const body = { ...sessionBody('private', TUESDAY_9), submissionId: crypto.randomUUID() };
    const first = await bookSession(jsonPost(`${SITE}/api/book-session`, body));
    const { checkout: url } = (await first.json()) as { checkout: string };
    advanceClock(1_500);
    const again = await bookSession(jsonPost(`${SITE}/api/book-session`, body));
    expect(again.status).toBe(200);
    expect(((await again.json()) as { checkout: string }).checkout).toBe(url);
    advanceClock(60_000);
    const later = await bookSession(jsonPost(`${SITE}/api/book-session`, body));
    expect(((await later.json()) as { checkout: string }).checkout).toBe(url);
    const creates = stripe.standIn.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(creates).toHaveLength(1);
    const { rows } = await env.db.query<{ id: string }>(`SELECT id FROM session_bookings`);
    expect(rows).toHaveLength(1);
    expect(await booking(rows[0]!.id)).toMatchObject({ payment: 'held', cancelled_at: null });
    // The time is still taken for everyone else, and the first page can be paid.
    const other = await bookSession(
      jsonPost(
        `${SITE}/api/book-session`,
        sessionBody('private', TUESDAY_9, { email: 'ada@example.test' }),
      ),
    );
    expect(other.status).toBe(409);
    const checkout = /\/pay\/(cs_test_\w+)$/.exec(url)![1]!;
    expect(await (await deliver(stripe.standIn.complete(checkout))).json()).toMatchObject({
      outcome: 'paid',
    });
    expect(await booking(rows[0]!.id)).toMatchObject({ payment: 'paid', cancelled_at: null });
    expect(stripe.standIn.refunds()).toEqual([]);
  });

  test('sent again while Stripe is still opening the first checkout (another instance): the repeat waits for it, and nothing is released', async () => {
    const body = { ...sessionBody('private', TUESDAY_9), submissionId: crypto.randomUUID() };
    const gate = stripe.standIn.holdNext('/v1/checkout/sessions');
    const first = bookSession(jsonPost(`${SITE}/api/book-session`, body));
    await gate.arrived;
    advanceClock(1_500);
    const second = bookSession(jsonPost(`${SITE}/api/book-session`, body));
    // Stripe has answered the repeat that the key is in use, before the first goes on.
    await stripe.standIn.requested('/v1/checkout/sessions', 2);
    gate.release();
    const answers = await Promise.all([first, second]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const [a, b] = (await Promise.all(answers.map((a) => a.json()))) as { checkout: string }[];
    expect(b!.checkout).toBe(a!.checkout);
    expect(stripe.standIn.requests.filter((r) => r.path === '/v1/checkout/sessions').length).toBe(
      2,
    );
    expect(await env.count('payments')).toBe(1);
    const { rows } = await env.db.query<{ payment: string; cancelled_at: Date | null }>(
      `SELECT payment, cancelled_at FROM session_bookings`,
    );
    expect(rows).toEqual([{ payment: 'held', cancelled_at: null }]);
  });

  test('a price the browser made up is refused before anything is held or asked of Stripe', async () => {
    const answer = await bookSession(
      jsonPost(`${SITE}/api/book-session`, sessionBody('private', TUESDAY_9, { price: '1' })),
    );
    expect(answer.status).toBe(422);
    expect(await env.count('session_bookings')).toBe(0);
    expect(stripe.standIn.requests).toEqual([]);
  });

  test('paid: confirmed by the event, read again from Stripe; the confirmation says what was paid', async () => {
    const { id, checkout } = await heldSession();
    // The visitor's return to the site proves nothing: the booking is still held, and its page
    // (Stripe's success address) says it waits for Stripe.
    expect((await booking(id)).payment).toBe('held');
    const token = sessionToken((await loadSession(id))!);
    const page = () => renderPage(new Request(`${SITE}/book/manage?token=${token}&paid=1`));
    expect(await (await page()).text()).toContain(
      '$120, paid online: waiting for Stripe to confirm the payment',
    );
    const answer = await deliver(stripe.standIn.complete(checkout));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ received: true, outcome: 'paid' });
    expect(await booking(id)).toMatchObject({ payment: 'paid', cancelled_at: null });
    expect((await paymentState(checkout)).state).toBe('paid');
    expect(await (await page()).text()).toContain('Paid: $120');
    await env.smtp.waitForMails(2);
    const visitor = env.smtp.mails.find((m) => m.envelope.to.includes('grace@example.test'))!;
    expect(visitor.text).toContain('Paid: $120');
    expect(visitor.text).not.toContain('Amount due');
  });

  test('the same event delivered twice, and twice at once, confirms once and mails once', async () => {
    const { id, checkout } = await heldSession();
    const event = stripe.standIn.complete(checkout);
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
    const forged = stripe.standIn.event('checkout.session.completed', {
      ...stripe.standIn.session(checkout),
      payment_status: 'paid',
      status: 'complete',
    } as never);
    const answer = await deliver(forged);
    expect(await answer.json()).toMatchObject({ outcome: 'ignored: Stripe says unpaid' });
    expect((await booking(id)).payment).toBe('held');
  });

  test('a signature that does not match is refused, and changes nothing', async () => {
    const { id, checkout } = await heldSession();
    const event = stripe.standIn.complete(checkout);
    // Every hex digit of the signature turned, so it differs whatever it was (a fixed digit
    // matched it one time in sixteen).
    const turned = event.signature.replace(
      /v1=(\w+)/,
      (_, hash: string) => `v1=${[...hash].map((c) => (c === '0' ? '1' : '0')).join('')}`,
    );
    const answer = await deliver(event, turned);
    expect(answer.status).toBe(400);
    expect((await booking(id)).payment).toBe('held');
    expect(await env.count('stripe_events')).toBe(0);
  });

  test('an event signed more than five minutes ago (a replay) is refused, and changes nothing; one signed just now is taken', async () => {
    const { id, checkout } = await heldSession();
    const event = stripe.standIn.complete(checkout);
    const signer = new Stripe('sk_test_signer');
    const signedAt = (ms: number) =>
      signer.webhooks.generateTestHeaderString({
        payload: event.payload,
        secret: stripe.standIn.webhookSecret,
        timestamp: Math.floor((now().getTime() + ms) / 1000),
      });
    for (const ago of [400 * 24 * 3_600_000, 6 * 60_000]) {
      const stale = await stripeWebhook(
        new Request(`${SITE}/api/stripe-webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signedAt(-ago) },
          body: event.payload,
        }),
      );
      expect(stale.status).toBe(400);
      expect((await booking(id)).payment).toBe('held');
    }
    expect(await env.count('stripe_events')).toBe(0);
    const fresh = await deliver(event, signedAt(-60_000));
    expect(fresh.status).toBe(200);
    expect((await booking(id)).payment).toBe('paid');
  });

  test('a body far larger than an event, streamed without a length, is refused unread past its cap', async () => {
    const { id } = await heldSession();
    let sent = 0;
    // 64 KiB chunks without end: the answer must come once the cap is passed, not at the end.
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 65_536;
        controller.enqueue(new Uint8Array(65_536).fill(0x20));
      },
    });
    const answer = await stripeWebhook(
      new Request(`${SITE}/api/stripe-webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=0' },
        body: endless,
        duplex: 'half',
      } as RequestInit),
    );
    expect(answer.status, await answer.clone().text()).toBe(413);
    expect(sent).toBeLessThan(2 * 1024 * 1024);
    expect((await booking(id)).payment).toBe('held');
    expect(await env.count('stripe_events')).toBe(0);
  });
});

describe('no place without money', () => {
  test('an expired checkout releases its hold: the time is free again', async () => {
    const { id, checkout } = await heldSession();
    const answer = await deliver(stripe.standIn.expire(checkout));
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

describe("a held session's page", () => {
  const manage = async (id: string, fields?: Record<string, string>) => {
    const token = sessionToken((await loadSession(id))!);
    return renderPage(
      fields
        ? formPost(`${SITE}/book/manage`, { token, ...fields })
        : new Request(`${SITE}/book/manage?token=${token}`),
    );
  };

  test('while the checkout is open: waiting for the payment, until when, neither move nor cancel', async () => {
    const { id } = await heldSession();
    const answer = await manage(id);
    expect(answer.status).toBe(200);
    const html = (await answer.text()).replace(/\s+/g, ' ');
    expect(html).toContain('Waiting for your payment. This time is held for you until 4:29 AM');
    expect(html).not.toContain('Cancel my session');
    expect(html).not.toContain('Move my session');
    // A cancel posted from an older page is refused and changes nothing.
    const refused = await manage(id, { action: 'cancel' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('once Stripe has confirmed it');
    expect(await booking(id)).toMatchObject({ payment: 'held', cancelled_at: null });
    expect(await env.count('mail_outbox')).toBe(0);
  });

  test('after the hold lapsed, before and after it was released: not booked, in words', async () => {
    const { id } = await heldSession();
    advanceClock(HOLD_MS + 1_000);
    for (const when of ['before the release', 'after the release']) {
      if (when === 'after the release') await transaction(releaseLapsedSessionHolds);
      const html = (await (await manage(id)).text()).replace(/\s+/g, ' ');
      expect(html, when).toContain('Not booked: Private Session');
      expect(html, when).toContain('the payment did not reach us in time');
      expect(html, when).not.toContain('Waiting for your payment');
      expect(html, when).not.toContain('Cancel my session');
    }
  });
});

describe('no money without a place', () => {
  test('paid after the hold lapsed, the place still free: the booking is confirmed', async () => {
    const { id, checkout } = await heldSession();
    advanceClock(HOLD_MS + 1_000);
    await transaction(releaseLapsedSessionHolds);
    const answer = await deliver(stripe.standIn.complete(checkout));
    expect(await answer.json()).toMatchObject({ outcome: 'paid' });
    expect(await booking(id)).toMatchObject({ payment: 'paid', cancelled_at: null });
    expect(stripe.standIn.refunds()).toEqual([]);
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
    const event = stripe.standIn.complete(checkout);
    const answer = await deliver(event);
    expect(await answer.json()).toMatchObject({ outcome: 'paid after its place went: refunded' });
    // Delivered again later: nothing more.
    expect(await (await deliver(event)).json()).toMatchObject({ outcome: 'already handled' });
    expect(await booking(id)).toMatchObject({ payment: 'held', cancelled_by: 'checkout' });
    const refunds = stripe.standIn.refunds();
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
    const completed = stripe.standIn.complete(checkout);
    const expired = stripe.standIn.event('checkout.session.expired', {
      ...stripe.standIn.session(checkout),
      status: 'expired',
    } as never);
    await deliver(completed);
    // Stripe's copy says paid: the expiry is read as what Stripe says, a payment already recorded.
    expect(await (await deliver(expired)).json()).toMatchObject({ outcome: 'already paid' });
    expect(await booking(id)).toMatchObject({ payment: 'paid', cancelled_at: null });
  });
});

describe('a payment that is not the price asked for', () => {
  for (const [what, paid, words] of [
    ['another amount', { amount: 100, currency: 'usd' }, '$1'],
    ['another currency (12,000 yen for $120)', { amount: 12000, currency: 'jpy' }, '¥12,000'],
  ] as const) {
    test(`${what}: recorded and refunded whole, nothing booked, the visitor and the studio told, and said in the log`, async () => {
      const { id, checkout } = await heldSession();
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const answer = await deliver(stripe.standIn.complete(checkout, { paid }));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({
        outcome: 'paid other than asked: refunded, nothing booked',
      });
      expect(errors.mock.calls.flat().join(' ')).toContain(
        `was paid ${paid.amount} ${paid.currency}, not the 12000 usd asked`,
      );
      errors.mockRestore();
      expect(await booking(id)).toMatchObject({ payment: 'held', cancelled_by: 'checkout' });
      expect(stripe.standIn.refunds().map((r) => [r.amount, r.currency])).toEqual([
        [paid.amount, paid.currency],
      ]);
      const { rows } = await env.db.query(
        `SELECT r.reason, r.state, p.received_cents, p.received_currency
           FROM payment_refunds r JOIN payments p ON p.id = r.payment_id`,
      );
      expect(rows).toEqual([
        {
          reason: 'mismatch',
          state: 'succeeded',
          received_cents: paid.amount,
          received_currency: paid.currency,
        },
      ]);
      await env.smtp.waitForMails(2);
      const visitor = env.smtp.mails.find((m) => m.envelope.to.includes('grace@example.test'))!;
      expect(visitor.text).toContain(
        `was ${words}, not the $120 asked, so nothing was booked and your payment has been refunded in full.`,
      );
      const studio = env.smtp.mails.find((m) => m.envelope.to.includes(STUDIO))!;
      expect(studio.subject).toBe('Payment refunded, nothing booked: Grace Hopper');
      expect(studio.text).toContain(
        `Stripe took ${words} from Grace Hopper for the private session on`,
      );
      // The time is free again, and the same event once more changes nothing.
      const other = await heldSession(TUESDAY_9, 'ada@example.test');
      expect(other.checkout).toMatch(/^cs_test_/);
      expect(stripe.standIn.refunds()).toHaveLength(1);
    });
  }
});

describe('an event applied by what Stripe says now', () => {
  test('an expiry for a checkout Stripe says is still open changes nothing: the time stays held', async () => {
    const { id, checkout } = await heldSession();
    const event = stripe.standIn.event('checkout.session.expired', {
      ...(stripe.standIn.session(checkout) as unknown as { id: string; object: string }),
      status: 'expired',
    });
    const answer = await deliver(event);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      outcome: 'ignored: Stripe says the checkout is open',
    });
    expect(await booking(id)).toMatchObject({ payment: 'held', cancelled_at: null });
    expect((await paymentState(checkout)).state).toBe('open');
  });

  test('an async payment failure for a checkout Stripe says is paid confirms it instead of releasing it', async () => {
    const { id, checkout } = await heldSession();
    const paid = stripe.standIn.complete(checkout);
    const failed = stripe.standIn.event('checkout.session.async_payment_failed', {
      ...(stripe.standIn.session(checkout) as unknown as { id: string; object: string }),
      payment_status: 'unpaid',
    });
    expect(await (await deliver(failed)).json()).toMatchObject({ outcome: 'paid' });
    expect(await booking(id)).toMatchObject({ payment: 'paid', cancelled_at: null });
    expect(await (await deliver(paid)).json()).toMatchObject({ outcome: 'already paid' });
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
    stripe.standIn.failNext('/v1/refunds');
    await deliver(stripe.standIn.complete(checkout));
    expect(stripe.standIn.refunds()).toHaveLength(0);
    const { rows: pending } = await env.db.query<{ state: string; attempts: number }>(
      `SELECT state, attempts FROM payment_refunds`,
    );
    expect(pending).toEqual([{ state: 'pending', attempts: 1 }]);
    // Sent again by the scheduled function, twice at once: Stripe makes one refund.
    await Promise.all([sendRefundsNow(), sendRefundsNow()]);
    expect(stripe.standIn.refunds()).toHaveLength(1);
    const keys = stripe.standIn.requests
      .filter((r) => r.path === '/v1/refunds')
      .map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(1);
    expect((await booking(id)).payment).toBe('held');
  });

  test('never more refunded than was paid, whatever is asked', async () => {
    const { checkout } = await heldSession();
    await deliver(stripe.standIn.complete(checkout));
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

  test('Stripe down when a checkout would open: told in words, nothing held, the time free', async () => {
    stripe.standIn.failNext('/v1/checkout/sessions');
    const answer = await bookSession(
      jsonPost(`${SITE}/api/book-session`, sessionBody('private', TUESDAY_9)),
    );
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({
      success: false,
      error:
        'Online payment is not available just now, so nothing was booked. Please try again in a few minutes.',
    });
    expect(await env.count('payments')).toBe(0);
    expect(await env.count('mail_outbox')).toBe(0);
    const { rows } = await env.db.query(`SELECT 1 FROM held_time`);
    expect(rows).toEqual([]);
    // Stripe back: the same time can be booked.
    const { checkout } = await heldSession(TUESDAY_9, 'ada@example.test');
    expect(checkout).toMatch(/^cs_test_/);
  });
});

describe('a paid session cancelled through its link', () => {
  test('within the policy: refunded in full, once, and the mail says so', async () => {
    const { id, checkout } = await heldSession();
    await deliver(stripe.standIn.complete(checkout));
    await env.smtp.waitForMails(2);
    env.smtp.mails.length = 0;
    const token = sessionToken((await loadSession(id))!);
    const cancel = () => renderPage(formPost(`${SITE}/book/manage`, { token, action: 'cancel' }));
    expect((await cancel()).status).toBe(303);
    expect((await cancel()).status).toBe(303);
    const refunds = stripe.standIn.refunds();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 12000, status: 'succeeded' });
    const { rows } = await env.db.query<{ reason: string; state: string; requested_by: string }>(
      `SELECT reason, state, requested_by FROM payment_refunds`,
    );
    expect(rows).toEqual([{ reason: 'policy', state: 'succeeded', requested_by: 'visitor' }]);
    await env.smtp.waitForMails(2);
    const told = env.smtp.mails.find((m) => m.envelope.to.includes('grace@example.test'))!;
    expect(told.text).toContain('Your payment of $120 is refunded in full');
  });

  test('outside the policy: refused, nothing refunded', async () => {
    const { id, checkout } = await heldSession();
    await deliver(stripe.standIn.complete(checkout));
    const token = sessionToken((await loadSession(id))!);
    // Tuesday 9:00 PST is 17:00 UTC; 23 hours before it is inside the 24 hours of the policy.
    setClock(new Date('2027-03-01T18:00:00Z'));
    const answer = await renderPage(formPost(`${SITE}/book/manage`, { token, action: 'cancel' }));
    expect(answer.status).toBe(409);
    expect(stripe.standIn.refunds()).toEqual([]);
    expect((await booking(id)).payment).toBe('paid');
  });
});

describe("Stripe's fee", () => {
  /** The fee recorded for a checkout's payment, in cents (null: Stripe has not reported it). */
  async function fee(checkout: string) {
    const { rows } = await env.db.query<{ fee_cents: number | null }>(
      `SELECT fee_cents FROM payments WHERE checkout_session = $1`,
      [checkout],
    );
    return rows[0]!.fee_cents;
  }
  const feeReads = () =>
    stripe.standIn.requests.filter((r) => r.path.startsWith('/v1/payment_intents/'));

  test("paid: the fee is read from the charge's balance transaction once the booking is confirmed", async () => {
    const { id, checkout } = await heldSession();
    const answer = await deliver(stripe.standIn.complete(checkout));
    expect(await answer.json()).toMatchObject({ outcome: 'paid' });
    expect((await booking(id)).payment).toBe('paid');
    // The stand-in's balance transaction carries Stripe's US card fee: 2.9% of $120 + 30¢.
    expect(await fee(checkout)).toBe(378);
    const { payment_intent } = await paymentState(checkout);
    expect(feeReads()).toEqual([{ method: 'GET', path: `/v1/payment_intents/${payment_intent}` }]);
    // Nothing left to read: the scheduled step asks Stripe nothing more.
    await sendRefundsNow();
    expect(feeReads()).toHaveLength(1);
  });

  test('a balance transaction Stripe makes later: the fee stays empty until the scheduled step finds it', async () => {
    const { id, checkout } = await heldSession();
    const answer = await deliver(stripe.standIn.complete(checkout, { balanceLater: true }));
    expect(await answer.json()).toMatchObject({ outcome: 'paid' });
    expect((await booking(id)).payment).toBe('paid');
    expect(await fee(checkout)).toBeNull();
    await sendRefundsNow();
    expect(await fee(checkout)).toBeNull();
    stripe.standIn.settle((await paymentState(checkout)).payment_intent!);
    await sendRefundsNow();
    expect(await fee(checkout)).toBe(378);
  });

  test('Stripe failing when the fee is read: the booking is confirmed and mailed all the same', async () => {
    const { id, checkout } = await heldSession();
    stripe.standIn.failNext('/v1/payment_intents');
    const answer = await deliver(stripe.standIn.complete(checkout));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ outcome: 'paid' });
    expect((await booking(id)).payment).toBe('paid');
    await env.smtp.waitForMails(2);
    expect(await fee(checkout)).toBeNull();
    await sendRefundsNow();
    expect(await fee(checkout)).toBe(378);
  });

  test('a fee Stripe never reports is asked for no longer than 30 days after the payment', async () => {
    const { checkout } = await heldSession();
    await deliver(stripe.standIn.complete(checkout, { balanceLater: true }));
    const asked = feeReads().length;
    advanceClock(31 * 24 * 3600_000);
    await sendRefundsNow();
    expect(feeReads()).toHaveLength(asked);
    expect(await fee(checkout)).toBeNull();
  });
});
