/**
 * A place in a class paid online, on a real PostgreSQL server and a real SMTP server, with the
 * real `stripe` SDK talking to the stand-in that checks every request against Stripe's published
 * OpenAPI description (tests/fixtures/stripe.ts), and events signed with the SDK's own helper.
 * The studio's clock is the test's (never a sleep).
 *
 * The place is held while its checkout is open (a held place is taken: the class is never
 * oversold), confirmed only by Stripe's event, given back when the checkout lapses; a payment
 * after the hold lapsed takes a place when one is free and is refunded, once, when none is; a
 * waitlist claim goes straight to payment; a paid place cancelled within the policy is refunded
 * in full, once, and the mail says so.
 */
import { describe, expect, test } from 'vitest';
import bookClass from '../../functions/book-class';
import classWaitlist from '../../functions/class-waitlist';
import classesSteps from '../../functions/classes-steps';
import { loadPlace, placeToken } from '../../src/server/classes/store';
import { advanceClock, setClock } from '../../src/server/platform/clock';
import { useFunctionEnv } from '../fixtures/function-env';
import { renderPage } from '../fixtures/on-demand';
import { PERSON_SPAM_CHECKS } from '../fixtures/submissions';
import { formPost, jsonPost } from './harness';
import { useStripeSite } from './stripe-site';

const env = useFunctionEnv();
const SITE = 'http://127.0.0.1:8888';
const STUDIO = 'studio-inbox@example.test';
// Monday 1 March 2027, 03:59 in Portland (tests/functions/classes.test.ts).
const NOW = new Date('2027-03-01T11:59:00Z');
// Mat Foundations, Tuesday 2 March 18:00 PST: 4 places, $45 (small-group.md's price).
const MAT = { class: 'mat-foundations-tu-1800', start: '2027-03-03T02:00:00.000Z' };
// Its cutoff, 12 hours before: below its minimum of 2 booked, it is cancelled then.
const MAT_CUTOFF = new Date('2027-03-02T14:00:00Z');
const HOLD_MS = 30 * 60_000;

// The place's and the offer's pages, rendered on demand as Netlify serves them.
const classManage = (request: Request) => renderPage(request);
const classClaim = (request: Request) => renderPage(request);

const stripe = useStripeSite({ site: SITE, studio: STUDIO, at: NOW });
const { deliver } = stripe;

let ip = 0;
const who = (first: string) => ({
  name: `${first} Tester`,
  email: `${first.toLowerCase()}@example.test`,
});

/** A JSON post from the page's script, each from a client of its own. */
const book = (first: string, extra: Record<string, unknown> = {}) =>
  bookClass(
    jsonPost(
      `${SITE}/api/classes/book`,
      { ...MAT, ...who(first), ...PERSON_SPAM_CHECKS, ...extra },
      { 'x-nf-client-connection-ip': `198.51.100.${(ip++ % 250) + 1}` },
    ),
  );

/** A place booked with the keys set: its place held, Stripe's page to pay on. */
async function held(first: string) {
  const answer = await book(first);
  expect(answer.status).toBe(200);
  const body = (await answer.json()) as { checkout: string };
  const checkout = /\/pay\/(cs_test_\w+)$/.exec(body.checkout)?.[1];
  expect(checkout, JSON.stringify(body)).toBeDefined();
  return { id: (await placeOf(first)).id, checkout: checkout! };
}

async function placeOf(first: string) {
  const { rows } = await env.db.query<{
    id: string;
    status: string;
    payment: string;
    place_no: number | null;
    held_until: Date | null;
  }>(
    `SELECT id, status, payment, place_no, held_until FROM class_places WHERE email = $1
      ORDER BY created_at DESC LIMIT 1`,
    [who(first).email],
  );
  return rows[0]!;
}

const mailsTo = (email: string) => env.smtp.mails.filter((m) => m.envelope.to.includes(email));

describe('a place held while its checkout is open', () => {
  test('the timetable says a place is paid online when booked, not at the studio', async () => {
    const html = await (await renderPage(new Request(`${SITE}/classes`))).text();
    expect(html).toContain('$45 per person, paid online when you book');
    expect(html).toContain('time zone (Portland, Oregon). A place is paid online when you book it');
    expect(html).not.toContain('due at the studio');
    expect(html).not.toContain('Payment is at the studio');
  });

  test('booked with the keys set: the place held, nothing mailed, Stripe asked for the price in content, once', async () => {
    const { id, checkout } = await held('Ann');
    const place = await placeOf('Ann');
    expect(place).toMatchObject({ status: 'booked', payment: 'held', place_no: 1 });
    // The clock runs on from NOW: held for the 30 minutes of content/booking.yaml from the booking.
    const heldMs = new Date(place.held_until!).getTime() - NOW.getTime();
    expect(heldMs).toBeGreaterThanOrEqual(HOLD_MS);
    expect(heldMs).toBeLessThan(HOLD_MS + 60_000);
    expect(await env.count('mail_outbox')).toBe(0);
    const session = stripe.standIn.session(checkout);
    expect(session).toMatchObject({ amount_total: 4500, currency: 'usd', status: 'open' });
    expect(session.metadata).toMatchObject({ booking_kind: 'place', booking_id: id });
    expect(session.success_url).toMatch(
      /^http:\/\/127\.0\.0\.1:8888\/classes\/manage\?token=[\w-]+&paid=1$/,
    );
    const creates = stripe.standIn.requests.filter((r) => r.path === '/v1/checkout/sessions');
    const heldUntil = new Date(place.held_until!).getTime();
    expect(creates.map((r) => r.idempotencyKey)).toEqual([`checkout:place:${id}:${heldUntil}`]);
  });

  test("without script the form is answered with a 303 to Stripe's page; sent again, the same page", async () => {
    const fields = Object.fromEntries(
      Object.entries({ ...MAT, ...who('Ann'), ...PERSON_SPAM_CHECKS }).map(([k, v]) => [
        k,
        String(v),
      ]),
    );
    const first = await bookClass(formPost(`${SITE}/api/classes/book`, fields));
    expect(first.status).toBe(303);
    const to = first.headers.get('location')!;
    expect(to).toMatch(new RegExp(`^${stripe.standIn.url}/pay/cs_test_\\w+$`));
    advanceClock(1_500);
    const again = await bookClass(formPost(`${SITE}/api/classes/book`, fields));
    expect(again.headers.get('location')).toBe(to);
    expect(await env.count('class_places')).toBe(1);
    expect(await env.count('payments')).toBe(1);
  });

  test('the same place booked again a moment later answers the checkout already open; the place stays held, and paying it confirms', async () => {
    const body = {
      ...MAT,
      ...who('Ann'),
      ...PERSON_SPAM_CHECKS,
      submissionId: crypto.randomUUID(),
    };
    const post = () => bookClass(jsonPost(`${SITE}/api/classes/book`, body));
    const { checkout: url } = (await (await post()).json()) as { checkout: string };
    advanceClock(1_500);
    const again = await post();
    expect(again.status).toBe(200);
    expect(((await again.json()) as { checkout: string }).checkout).toBe(url);
    expect(await placeOf('Ann')).toMatchObject({ status: 'booked', payment: 'held' });
    expect(await env.count('class_waitlist')).toBe(0);
    const checkout = /\/pay\/(cs_test_\w+)$/.exec(url)![1]!;
    expect(await (await deliver(stripe.standIn.complete(checkout))).json()).toMatchObject({
      outcome: 'paid',
    });
    expect(await placeOf('Ann')).toMatchObject({ status: 'booked', payment: 'paid' });
    expect(stripe.standIn.refunds()).toEqual([]);
  });

  test('a price the browser made up is refused before anything is held or asked of Stripe', async () => {
    const answer = await book('Ann', { price: 1 });
    expect(answer.status).toBe(422);
    expect(await env.count('class_places')).toBe(0);
    expect(stripe.standIn.requests).toEqual([]);
  });

  test('a held place is taken: with every place held, the next person is refused and may wait', async () => {
    for (const first of ['Ann', 'Ben', 'Cat', 'Dan']) await held(first);
    const refused = await book('Eve');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ reason: 'full' });
    const waiting = await classWaitlist(
      jsonPost(`${SITE}/api/classes/waitlist`, { ...MAT, ...who('Eve'), ...PERSON_SPAM_CHECKS }),
    );
    expect(waiting.status).toBe(200);
    expect(stripe.standIn.requests.filter((r) => r.path === '/v1/checkout/sessions')).toHaveLength(
      4,
    );
  });

  test('paid: confirmed by the event, read again from Stripe; the confirmation says what was paid', async () => {
    const { id, checkout } = await held('Ann');
    const answer = await deliver(stripe.standIn.complete(checkout));
    expect(await answer.json()).toMatchObject({ received: true, outcome: 'paid' });
    expect(await placeOf('Ann')).toMatchObject({ status: 'booked', payment: 'paid', place_no: 1 });
    // Another event about the same payment: nothing more.
    const another = stripe.standIn.event(
      'checkout.session.completed',
      stripe.standIn.session(checkout) as never,
    );
    expect(await (await deliver(another)).json()).toMatchObject({ outcome: 'already paid' });
    await env.smtp.waitForMails(3);
    const [mail] = mailsTo('ann@example.test');
    expect(mail!.text).toContain('Paid');
    expect(mail!.text).toContain('$45');
    expect(mail!.text).not.toContain('Due at the studio');
    const page = await classManage(
      new Request(`${SITE}/classes/manage?token=${placeToken((await loadPlace(id))!)}&paid=1`),
    );
    expect(await page.text()).toContain('Paid');
  });
});

describe("a held place's page", () => {
  const page = async (id: string, method = 'GET') => {
    const token = placeToken((await loadPlace(id))!);
    return method === 'GET'
      ? classManage(new Request(`${SITE}/classes/manage?token=${token}`))
      : classManage(formPost(`${SITE}/classes/manage`, { token }));
  };

  test('while the checkout is open: waiting for the payment, until when, and no cancel button', async () => {
    const { id } = await held('Ann');
    const answer = await page(id);
    expect(answer.status).toBe(200);
    const html = (await answer.text()).replace(/\s+/g, ' ');
    expect(html).toContain('Waiting for your payment. This place is held for you until');
    expect(html).toContain('Monday, March 1, 2027, 4:29 AM');
    expect(html).not.toContain('Cancel my place');
    // A cancel posted from an older page is refused and changes nothing.
    const refused = await page(id, 'POST');
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('can be cancelled once Stripe has confirmed it');
    expect(await placeOf('Ann')).toMatchObject({ status: 'booked', payment: 'held', place_no: 1 });
    expect(await env.count('mail_outbox')).toBe(0);
  });

  test('after the hold lapsed, before and after the steps gave the place back: not kept, in words', async () => {
    const { id } = await held('Ann');
    advanceClock(HOLD_MS + 1_000);
    for (const when of ['before the steps', 'after the steps']) {
      if (when === 'after the steps') await classesSteps();
      const answer = await page(id);
      expect(answer.status, when).toBe(200);
      const html = (await answer.text()).replace(/\s+/g, ' ');
      expect(html, when).toContain('Your place was not kept');
      expect(html, when).toContain('the payment did not reach us in time');
      expect(html, when).not.toContain('Cancel my place');
      expect(html, when).not.toContain('Waiting for your payment');
    }
  });
});

describe('no place without money, no money without a place', () => {
  test('an expired checkout gives its place back', async () => {
    const { checkout } = await held('Ann');
    const answer = await deliver(stripe.standIn.expire(checkout));
    expect(await answer.json()).toMatchObject({ outcome: 'released' });
    expect(await placeOf('Ann')).toMatchObject({ status: 'lapsed', place_no: null });
  });

  test('a hold whose checkout lapsed with no event is given back by the steps on the studio clock', async () => {
    await held('Ann');
    advanceClock(HOLD_MS - 1_000);
    expect(await (await classesSteps()).json()).toMatchObject({ released: 0 });
    advanceClock(2_000);
    expect(await (await classesSteps()).json()).toMatchObject({ released: 1 });
    expect(await placeOf('Ann')).toMatchObject({ status: 'lapsed', place_no: null });
  });

  test('paid after the hold lapsed, a place still free: the place is confirmed', async () => {
    const { checkout } = await held('Ann');
    advanceClock(HOLD_MS + 1_000);
    await classesSteps();
    const answer = await deliver(stripe.standIn.complete(checkout));
    expect(await answer.json()).toMatchObject({ outcome: 'paid' });
    expect(await placeOf('Ann')).toMatchObject({ status: 'booked', payment: 'paid', place_no: 1 });
    expect(stripe.standIn.refunds()).toEqual([]);
  });

  test('paid after the hold lapsed and every place taken: refunded in full, once, and told', async () => {
    const { checkout } = await held('Ann');
    advanceClock(HOLD_MS + 1_000);
    await classesSteps();
    for (const first of ['Ben', 'Cat', 'Dan', 'Eve']) await held(first);
    const event = stripe.standIn.complete(checkout);
    expect(await (await deliver(event)).json()).toMatchObject({
      outcome: 'paid after its place went: refunded',
    });
    expect(await (await deliver(event)).json()).toMatchObject({ outcome: 'already handled' });
    expect(await placeOf('Ann')).toMatchObject({ status: 'lapsed', place_no: null });
    const refunds = stripe.standIn.refunds();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 4500, status: 'succeeded' });
    await env.smtp.waitForMails(1);
    const [told] = mailsTo('ann@example.test');
    expect(told!.subject).toBe(
      'Refunded: your payment for Mat Foundations on Tuesday, March 2 at 6:00 PM PST',
    );
    expect(told!.text).toContain('$45 has been refunded in full');
  });

  test('a class cancelled below its minimum while a place is being paid for: no mail for the place, the payment refunded', async () => {
    // Ten minutes before Mat Foundations' cutoff: the place is held past it.
    setClock(new Date(MAT_CUTOFF.getTime() - 10 * 60_000));
    const { checkout } = await held('Ann');
    setClock(MAT_CUTOFF);
    expect(await (await classesSteps()).json()).toMatchObject({ released: 0, cancelled: 1 });
    expect(await placeOf('Ann')).toMatchObject({ status: 'lapsed', place_no: null });
    const { rows } = await env.db.query<{ kind: string }>(
      `SELECT kind FROM mail_outbox WHERE kind = 'class-cancel-visitor'`,
    );
    expect(rows).toEqual([]);
    expect(await (await deliver(stripe.standIn.complete(checkout))).json()).toMatchObject({
      outcome: 'paid after its place went: refunded',
    });
    expect(stripe.standIn.refunds()).toHaveLength(1);
  });

  test('a class cancelled below its minimum at its cutoff: a place paid online is refunded in full, once, and the mail says so', async () => {
    const { checkout } = await held('Ann');
    await deliver(stripe.standIn.complete(checkout));
    await env.smtp.waitForMails(3);
    env.smtp.mails.length = 0;
    setClock(MAT_CUTOFF);
    expect(await (await classesSteps()).json()).toMatchObject({ cancelled: 1, refunds: 1 });
    expect(stripe.standIn.refunds()).toHaveLength(1);
    const { rows } = await env.db.query<{ state: string; reason: string; amount_cents: number }>(
      'SELECT state, reason, amount_cents FROM payment_refunds',
    );
    expect(rows).toEqual([{ state: 'succeeded', reason: 'class-cancelled', amount_cents: 4500 }]);
    await env.smtp.waitForMails(2);
    const [mail] = mailsTo('ann@example.test');
    expect(mail!.text).toContain('Your payment of $45 is refunded in full');
    // The next run changes nothing more.
    expect(await (await classesSteps()).json()).toMatchObject({ cancelled: 0, refunds: 0 });
    expect(stripe.standIn.refunds()).toHaveLength(1);
  });

  test('Stripe down when a checkout would open: told in words, nothing held', async () => {
    stripe.standIn.failNext('/v1/checkout/sessions');
    const answer = await book('Ann');
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({
      error:
        'Online payment is not available just now, so nothing was booked. Please try again in a few minutes.',
    });
    const { rows } = await env.db.query(`SELECT 1 FROM class_places WHERE place_no IS NOT NULL`);
    expect(rows).toEqual([]);
    expect(await env.count('mail_outbox')).toBe(0);
  });
});

describe('a payment that is not the price asked for', () => {
  test('refunded whole, the place given back, the participant and the studio told', async () => {
    const { id, checkout } = await held('Ann');
    const answer = await deliver(
      stripe.standIn.complete(checkout, { paid: { amount: 4500, currency: 'eur' } }),
    );
    expect(await answer.json()).toMatchObject({
      outcome: 'paid other than asked: refunded, nothing booked',
    });
    expect(await placeOf('Ann')).toMatchObject({ id, payment: 'held', place_no: null });
    expect(stripe.standIn.refunds().map((r) => [r.amount, r.currency])).toEqual([[4500, 'eur']]);
    await env.smtp.waitForMails(2);
    expect(mailsTo('ann@example.test')[0]!.text).toContain(
      'was €45.00, not the $45 asked, so nothing was booked',
    );
    expect(mailsTo(STUDIO)[0]!.subject).toBe('Payment refunded, nothing booked: Ann Tester');
  });
});

describe('a paid place and its waitlist', () => {
  test('cancelled within the policy: refunded in full, once, and the mail says so; the place offered, the claim link goes straight to payment', async () => {
    const places = [];
    for (const first of ['Ann', 'Ben', 'Cat', 'Dan']) places.push(await held(first));
    await deliver(stripe.standIn.complete(places[0]!.checkout));
    const waiting = await classWaitlist(
      jsonPost(`${SITE}/api/classes/waitlist`, { ...MAT, ...who('Eve'), ...PERSON_SPAM_CHECKS }),
    );
    expect(waiting.status).toBe(200);
    await env.smtp.waitForMails(4);
    env.smtp.mails.length = 0;

    // Ann cancels twice: one refund.
    const token = placeToken((await loadPlace(places[0]!.id))!);
    const cancel = () => classManage(formPost(`${SITE}/classes/manage`, { token }));
    expect((await cancel()).status).toBe(200);
    expect((await cancel()).status).toBe(200);
    const refunds = stripe.standIn.refunds();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 4500, status: 'succeeded' });
    const { rows } = await env.db.query(`SELECT reason, state, requested_by FROM payment_refunds`);
    expect(rows).toEqual([{ reason: 'policy', state: 'succeeded', requested_by: 'visitor' }]);
    await env.smtp.waitForMails(3);
    const cancelled = mailsTo('ann@example.test').find((m) => m.subject?.startsWith('Cancelled'))!;
    expect(cancelled.text).toContain('Your payment of $45 is refunded in full');

    // Eve's offer: opening the link changes nothing; claiming it goes to Stripe's page.
    const offer = mailsTo('eve@example.test')[0]!;
    const link = /http:\/\/127\.0\.0\.1:8888\/classes\/claim\?token=([\w-]{43})/.exec(offer.text!)!;
    const before = await env.count('payments');
    const shown = await classClaim(new Request(link[0]));
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Claim and pay');
    expect(await env.count('payments')).toBe(before);
    expect(await placeOf('Eve')).toMatchObject({ status: 'offered', payment: 'due' });
    const claimed = await classClaim(formPost(`${SITE}/classes/claim`, { token: link[1]! }));
    expect(claimed.status).toBe(303);
    const to = claimed.headers.get('location')!;
    const checkout = new RegExp(`^${stripe.standIn.url}/pay/(cs_test_\\w+)$`).exec(to)?.[1];
    expect(checkout, to).toBeDefined();
    expect(await placeOf('Eve')).toMatchObject({ status: 'booked', payment: 'held' });
    // A second POST, a moment later: the same checkout, and the place still held for Eve.
    advanceClock(1_500);
    const again = await classClaim(formPost(`${SITE}/classes/claim`, { token: link[1]! }));
    expect(again.headers.get('location')).toBe(to);
    expect(await placeOf('Eve')).toMatchObject({ status: 'booked', payment: 'held' });
    advanceClock(60_000);
    const third = await classClaim(formPost(`${SITE}/classes/claim`, { token: link[1]! }));
    expect(third.headers.get('location')).toBe(to);
    expect(stripe.standIn.requests.filter((r) => r.path === '/v1/checkout/sessions')).toHaveLength(
      5,
    );
    expect(await (await deliver(stripe.standIn.complete(checkout!))).json()).toMatchObject({
      outcome: 'paid',
    });
    expect(await placeOf('Eve')).toMatchObject({ status: 'booked', payment: 'paid' });
  });
});
