/**
 * The records desk's Bookings screen through its function, as the desk's island calls it: the
 * consultations, sessions and classes of today and to come with each person's waiver and
 * payment; marking paid at the studio and a no-show; cancelling one booking or a whole class
 * (the same mails and calendar CANCEL as a visitor's, what was paid online refunded); refunding a
 * payment in full or in part, once per press. Real PostgreSQL, real SMTP, the real `stripe` SDK
 * against the stand-in that checks each request against Stripe's OpenAPI description.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import bookClass from '../../functions/book-class';
import bookConsultation from '../../functions/book-consultation';
import bookSession from '../../functions/book-session';
import sendRefundsNow from '../../functions/send-refunds';
import stripeWebhook from '../../functions/stripe-webhook';
import { loadSession, sessionToken } from '../../src/server/booking/session-store';
import { loadPlace, placeToken } from '../../src/server/classes/store';
import { upcomingClasses } from '../../src/server/classes/engine';
import { now, setClock } from '../../src/server/platform/clock';
import type { BookingsOverview, LogRow } from '../../src/shared/desk-api';
import { useFunctionEnv } from '../fixtures/function-env';
import type { ReceivedMail } from '../fixtures/smtp';
import { startStripeStandIn, type StripeStandIn } from '../fixtures/stripe';
import { bookingBody, PERSON_SPAM_CHECKS, sessionBody } from '../fixtures/submissions';
import { renderPage } from '../fixtures/on-demand';
import { desk, ORIGIN, signIn, signWaiver, STAFF } from './desk';
import { formPost, jsonPost } from './harness';

const env = useFunctionEnv();
const STUDIO = 'studio-inbox@example.test';
// Monday 1 March 2027, 03:59 in Portland.
const NOW = new Date('2027-03-01T11:59:00Z');
// Tuesday 9:00 PST: a private session; Wednesday 9:00 PST: a consultation.
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const WEDNESDAY_9 = '2027-03-03T17:00:00Z';
// Mat Foundations, Tuesday 2 March 18:00 PST: 4 places, minimum 2, $45.
const MAT = { class: 'mat-foundations-tu-1800', start: '2027-03-03T02:00:00.000Z' };

let standIn: StripeStandIn;

beforeAll(async () => {
  standIn = await startStripeStandIn({ now });
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
});
afterAll(async () => {
  delete process.env.PAGES_DIR;
  await standIn?.close();
});
beforeEach(() => {
  setClock(NOW);
  standIn.reset();
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('CONTACT_TO', STUDIO);
  vi.stubEnv('SITE_URL', ORIGIN);
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_RATE_LIMIT', '1000/1m');
  vi.stubEnv('BOOKING_RATE_LIMIT', '1000/1m');
  vi.stubEnv('CONSULTATION_EMAIL_LIMIT', '1000/1m');
});
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
  expect(standIn.violations).toEqual([]);
});

/** The studio's Stripe keys set, pointed at the stand-in. */
function withStripe() {
  vi.stubEnv('STRIPE_SECRET_KEY', 'sk_test_studio');
  vi.stubEnv('STRIPE_WEBHOOK_SECRET', standIn.webhookSecret);
  vi.stubEnv('STRIPE_API_URL', standIn.url);
}

let ip = 0;
const from = () => ({ 'x-nf-client-connection-ip': `198.51.100.${(ip++ % 250) + 1}` });

async function consultation(email = 'ada@example.test') {
  const answer = await bookConsultation(
    jsonPost(`${ORIGIN}/api/consultation/book`, bookingBody(WEDNESDAY_9, { email }), from()),
  );
  expect(answer.status).toBe(200);
  return (await env.db.query<{ id: string }>('SELECT id FROM consultation_bookings')).rows[0]!.id;
}

async function session(email = 'grace@example.test') {
  const answer = await bookSession(
    jsonPost(`${ORIGIN}/api/book-session`, sessionBody('private', TUESDAY_9, { email }), from()),
  );
  expect(answer.status).toBe(200);
  const { rows } = await env.db.query<{ id: string }>(
    'SELECT id FROM session_bookings WHERE email = $1',
    [email],
  );
  return rows[0]!.id;
}

/** Pays a booking's open checkout at the stand-in and delivers Stripe's event to the webhook. */
async function payOnline(bookingId: string, mails: number) {
  const { rows } = await env.db.query<{ checkout_session: string }>(
    'SELECT checkout_session FROM payments WHERE booking_id = $1',
    [bookingId],
  );
  const event = standIn.complete(rows[0]!.checkout_session);
  const answer = await stripeWebhook(
    new Request(`${ORIGIN}/api/stripe-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      body: event.payload,
    }),
  );
  expect(answer.status).toBe(200);
  await env.smtp.waitForMails(mails);
  env.smtp.mails.length = 0;
}

/** A session booked and paid online through the stand-in's completion. */
async function paidSession(email = 'grace@example.test') {
  withStripe();
  const id = await session(email);
  await payOnline(id, 2);
  return id;
}

/** A class place booked and paid online through the stand-in's completion. */
async function paidPlace(first: string) {
  withStripe();
  const id = await place(first);
  await payOnline(id, 3);
  return id;
}

/** A place paid online, as the checkout records one: a paid row with Stripe's reference. */
async function paidOnline(placeId: string) {
  await env.db.query(
    `UPDATE class_places SET payment = 'paid', paid_at = now(), paid_by = 'checkout' WHERE id = $1`,
    [placeId],
  );
  await env.db.query(
    `INSERT INTO payments (id, booking_kind, booking_id, checkout_session, amount_cents, currency,
                           state, payment_intent, expires_at, paid_at)
     VALUES (gen_random_uuid(), 'place', $1, $2, 4500, 'usd', 'paid', $3, now(), now())`,
    [placeId, `cs_test_${placeId.replace(/-/g, '')}`, `pi_test_${placeId.replace(/-/g, '')}`],
  );
}

async function place(first: string) {
  const answer = await bookClass(
    jsonPost(
      `${ORIGIN}/api/classes/book`,
      {
        ...MAT,
        name: `${first} Tester`,
        email: `${first.toLowerCase()}@example.test`,
        ...PERSON_SPAM_CHECKS,
      },
      from(),
    ),
  );
  expect(answer.status).toBe(200);
  const { rows } = await env.db.query<{ id: string }>(
    'SELECT id FROM class_places WHERE email = $1',
    [`${first.toLowerCase()}@example.test`],
  );
  return rows[0]!.id;
}

async function overview(cookie: string): Promise<BookingsOverview> {
  const answer = await desk('/api/records/bookings', { cookie });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  return (await answer.json()) as BookingsOverview;
}

const post = (cookie: string, path: string, body: unknown) =>
  desk(`/api/records/bookings/${path}`, { cookie, body });

async function refusal(answer: Promise<Response>, status: number) {
  const response = await answer;
  const body = (await response.json()) as { success: boolean; error: string };
  expect({ status: response.status, success: body.success }).toEqual({ status, success: false });
  return body;
}

async function log(cookie: string): Promise<LogRow[]> {
  const answer = await desk('/api/records/log', { cookie });
  return ((await answer.json()) as { items: LogRow[] }).items;
}

/** What each table holds of the bookings, to show a refusal changed nothing. */
async function snapshot() {
  const tables = ['session_bookings', 'class_places', 'class_dates', 'consultation_bookings'];
  const rows: unknown[] = [];
  for (const table of tables) {
    rows.push((await env.db.query(`SELECT * FROM ${table} ORDER BY id`)).rows);
  }
  rows.push((await env.db.query('SELECT id, state, amount_cents FROM payment_refunds')).rows);
  rows.push((await env.db.query('SELECT count(*)::int AS n FROM mail_outbox')).rows);
  return rows;
}

async function mailTo(to: string, subject: RegExp): Promise<ReceivedMail> {
  const match = (m: ReceivedMail) => m.envelope.to.includes(to) && subject.test(m.subject ?? '');
  await expect.poll(() => env.smtp.mails.some(match)).toBe(true);
  return env.smtp.mails.find(match)!;
}

const calendarMethod = (mail: ReceivedMail) => {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar');
  return part && /^METHOD:(\w+)/m.exec(part.content.toString('utf8'))?.[1];
};

describe('the screen', () => {
  test('today and to come: consultations, sessions and each class with its roster, waiver and payment', async () => {
    await signWaiver({ email: 'grace@example.test', name: 'Grace Hopper' });
    await consultation();
    await session();
    await place('Ann');
    const cookie = await signIn(env.smtp);
    const seen = await overview(cookie);
    expect(seen.timeZone).toBe('America/Los_Angeles');
    expect(seen.bookings.map((b) => [b.kind, b.start, b.person.email])).toEqual([
      ['session', '2027-03-02T17:00:00.000Z', 'grace@example.test'],
      ['consultation', '2027-03-03T17:00:00.000Z', 'ada@example.test'],
    ]);
    const [private_, consult] = seen.bookings;
    expect(private_).toMatchObject({
      title: 'Private Session',
      person: { waiverStatus: 'covered' },
      payment: { state: 'due', amountCents: 12000, refundableCents: 0 },
      outsideHours: false,
      noShow: false,
    });
    expect(consult).toMatchObject({ payment: null, person: { waiverStatus: 'none' } });
    const mat = seen.classes.find((c) => c.key === MAT.class && c.start === MAT.start)!;
    expect(mat).toMatchObject({ capacity: 4, minimum: 2, booked: 1, priceCents: 4500 });
    expect(mat.places).toEqual([
      expect.objectContaining({
        status: 'booked',
        person: expect.objectContaining({ name: 'Ann Tester', waiverStatus: 'none' }),
        payment: expect.objectContaining({ state: 'due', amountCents: 4500 }),
      }),
    ]);
    // The timetable's dates nobody booked yet are listed too, to be cancelled ahead.
    const thursday = seen.classes.find((c) => c.key === 'mat-foundations-th-1800');
    expect(thursday).toMatchObject({ id: null, booked: 0, places: [] });
  });

  test('a session booked before her hours changed is marked outside them, and stays booked', async () => {
    const id = await session();
    const content = await mkdtemp(join(tmpdir(), 'bookings-hours-'));
    try {
      await cp(resolve(import.meta.dirname, '../../content'), content, { recursive: true });
      // Her mornings are now Mondays only: Tuesday 9:00 is outside her hours.
      const file = join(content, 'booking.yaml');
      const hours = await readFile(file, 'utf8');
      await writeFile(file, hours.replace('days: [Mo, Tu, We, Th, Fr]', 'days: [Mo]'));
      vi.stubEnv('CONTENT_DIR', content);
      const cookie = await signIn(env.smtp);
      const [booked] = (await overview(cookie)).bookings;
      expect(booked).toMatchObject({ id, outsideHours: true, cancelledAt: null });
    } finally {
      await rm(content, { recursive: true, force: true });
    }
  });

  test('signed out: 401, and nothing listed', async () => {
    await session();
    await refusal(desk('/api/records/bookings'), 401);
    await refusal(desk('/api/records/bookings/paid', { body: { kind: 'session', id: '' } }), 401);
  });
});

describe('paid at the studio, and a no-show', () => {
  test('marked once, in the access log; bad input refused with words, changing nothing', async () => {
    const id = await session();
    const placeId = await place('Ann');
    const cookie = await signIn(env.smtp);
    const before = await snapshot();
    const bad = await refusal(post(cookie, 'paid', { kind: 'lesson', id }), 422);
    expect(bad.error).toMatch(/Please choose a session or a place in a class/);
    await refusal(post(cookie, 'paid', { kind: 'session', id: 'not-an-id' }), 422);
    await refusal(
      post(cookie, 'paid', { kind: 'session', id: '00000000-0000-4000-8000-000000000000' }),
      404,
    );
    await refusal(post(cookie, 'paid', { kind: 'consultation', id }), 422);
    expect(await snapshot()).toEqual(before);

    expect((await post(cookie, 'paid', { kind: 'session', id })).status).toBe(200);
    expect((await post(cookie, 'paid', { kind: 'place', id: placeId })).status).toBe(200);
    const again = await refusal(post(cookie, 'paid', { kind: 'session', id }), 409);
    expect(again.error).toBe('That booking is marked paid already.');
    const seen = await overview(cookie);
    expect(seen.bookings[0]!.payment).toMatchObject({ state: 'paid-studio', amountCents: 12000 });
    expect(seen.classes.find((c) => c.start === MAT.start)!.places[0]!.payment.state).toBe(
      'paid-studio',
    );
    const { rows } = await env.db.query<{ paid_by: string }>(
      'SELECT paid_by FROM session_bookings WHERE id = $1',
      [id],
    );
    expect(rows[0]!.paid_by).toBe(STAFF);
    const entries = await log(cookie);
    expect(entries.filter((e) => e.action === 'mark-paid').map((e) => e.recordId)).toEqual([
      placeId,
      id,
    ]);
  });

  test('a mark paid at the studio is taken back by her, in the access log; a payment made online never is', async () => {
    const id = await session();
    const cookie = await signIn(env.smtp);
    const never = await refusal(post(cookie, 'paid', { kind: 'session', id, paid: false }), 409);
    expect(never.error).toMatch(/^That booking is not marked paid at the studio/);
    expect((await post(cookie, 'paid', { kind: 'session', id })).status).toBe(200);
    expect((await post(cookie, 'paid', { kind: 'session', id, paid: false })).status).toBe(200);
    expect((await overview(cookie)).bookings[0]!.payment).toMatchObject({ state: 'due' });
    const { rows } = await env.db.query<{ payment: string; paid_at: Date | null; paid_by: null }>(
      'SELECT payment, paid_at, paid_by FROM session_bookings WHERE id = $1',
      [id],
    );
    expect(rows[0]).toEqual({ payment: 'due', paid_at: null, paid_by: null });
    expect((await log(cookie)).slice(0, 2).map((e) => [e.action, e.recordId])).toEqual([
      ['unmark-paid', id],
      ['mark-paid', id],
    ]);
    // Ann paid online (as the checkout records a payment: a paid row with Stripe's reference).
    const ann = await place('Ann');
    await paidOnline(ann);
    const refused = await refusal(
      post(cookie, 'paid', { kind: 'place', id: ann, paid: false }),
      409,
    );
    expect(refused.error).toMatch(/A payment made online is refunded instead\.$/);
  });

  test('a no-show only once its time has begun; taken back too', async () => {
    const id = await session();
    let cookie = await signIn(env.smtp);
    const early = await refusal(
      post(cookie, 'no-show', { kind: 'session', id, noShow: true }),
      409,
    );
    expect(early.error).toBe('A booking can be marked a no-show once its time has begun.');
    await refusal(post(cookie, 'no-show', { kind: 'session', id, noShow: 'yes' }), 422);
    // Her sign-in of the day before has ended by now: she signs in again.
    setClock(new Date('2027-03-02T17:20:00Z'));
    cookie = await signIn(env.smtp);
    expect((await post(cookie, 'no-show', { kind: 'session', id, noShow: true })).status).toBe(200);
    expect((await overview(cookie)).bookings[0]!.noShow).toBe(true);
    expect((await post(cookie, 'no-show', { kind: 'session', id, noShow: false })).status).toBe(
      200,
    );
    expect((await overview(cookie)).bookings[0]!.noShow).toBe(false);
    expect((await log(cookie)).slice(0, 2).map((e) => e.action)).toEqual([
      'unmark-no-show',
      'mark-no-show',
    ]);
  });

  test('a class place too, through its own kind', async () => {
    const placeId = await place('Ann');
    let cookie = await signIn(env.smtp);
    const early = await refusal(
      post(cookie, 'no-show', { kind: 'place', id: placeId, noShow: true }),
      409,
    );
    expect(early.error).toBe('A booking can be marked a no-show once its time has begun.');
    setClock(new Date('2027-03-03T02:05:00Z'));
    cookie = await signIn(env.smtp);
    const marked = async () =>
      (await overview(cookie)).classes.find((c) => c.id)!.places.find((p) => p.id === placeId)!;
    expect(
      (await post(cookie, 'no-show', { kind: 'place', id: placeId, noShow: true })).status,
    ).toBe(200);
    expect((await marked()).noShow).toBe(true);
    expect(
      (await post(cookie, 'no-show', { kind: 'place', id: placeId, noShow: false })).status,
    ).toBe(200);
    expect((await marked()).noShow).toBe(false);
    const entries = (await log(cookie)).slice(0, 2);
    expect(entries.map((e) => [e.action, e.recordId])).toEqual([
      ['unmark-no-show', placeId],
      ['mark-no-show', placeId],
    ]);
  });
});

describe('cancelling', () => {
  test('a session: the same cancellation and calendar CANCEL as a visitor gets, with her note; once', async () => {
    const id = await session();
    await env.smtp.waitForMails(2);
    env.smtp.mails.length = 0;
    const cookie = await signIn(env.smtp);
    env.smtp.mails.length = 0;
    const answer = await post(cookie, 'cancel', { kind: 'session', id, note: 'I am unwell.' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ cancelled: true, refundedCents: 0 });
    await env.smtp.waitForMails(2);
    const visitor = env.smtp.mails.find((m) => m.envelope.to.includes('grace@example.test'))!;
    expect(visitor.text).toContain('has had to cancel your');
    expect(visitor.text).toContain('I am unwell.');
    expect(visitor.text).not.toContain('refunded');
    expect(calendarMethod(visitor)).toBe('CANCEL');
    const studio = env.smtp.mails.find((m) => m.envelope.to.includes(STUDIO))!;
    expect(calendarMethod(studio)).toBe('CANCEL');
    const before = await snapshot();
    const again = await refusal(post(cookie, 'cancel', { kind: 'session', id, note: '' }), 409);
    expect(again.error).toBe('That booking is cancelled already.');
    expect(await snapshot()).toEqual(before);
    expect((await log(cookie))[0]).toMatchObject({ action: 'cancel-session', recordId: id });
  });

  test('a consultation and a class place, through their own cancellations', async () => {
    const consult = await consultation();
    const placeId = await place('Ann');
    const cookie = await signIn(env.smtp);
    env.smtp.mails.length = 0;
    expect(
      (await post(cookie, 'cancel', { kind: 'consultation', id: consult, note: '' })).status,
    ).toBe(200);
    expect((await post(cookie, 'cancel', { kind: 'place', id: placeId, note: '' })).status).toBe(
      200,
    );
    await env.smtp.waitForMails(4);
    const ann = env.smtp.mails.find((m) => m.envelope.to.includes('ann@example.test'))!;
    expect(calendarMethod(ann)).toBe('CANCEL');
    const ada = env.smtp.mails.find((m) => m.envelope.to.includes('ada@example.test'))!;
    expect(calendarMethod(ada)).toBe('CANCEL');
    // Her own notice says who cancelled the place: not Ann.
    const notice = await mailTo(STUDIO, /^Class place cancelled/);
    expect(notice.text).toContain(`was cancelled on the records desk by ${STAFF}`);
    expect(notice.text).not.toContain('cancelled their place');
    const seen = await overview(cookie);
    expect(seen.bookings[0]!.cancelledAt).not.toBeNull();
    expect(seen.classes.find((c) => c.start === MAT.start)!.booked).toBe(0);
    await refusal(post(cookie, 'cancel', { kind: 'place', id: placeId, note: '' }), 409);
    await refusal(post(cookie, 'cancel', { kind: 'consultation', id: consult, note: '' }), 409);
  });

  test('a whole class: everyone told, her calendar too; once; a class that is not there refused', async () => {
    await place('Ann');
    await place('Ben');
    const cookie = await signIn(env.smtp);
    env.smtp.mails.length = 0;
    const before = await snapshot();
    await refusal(
      post(cookie, 'cancel-class', { key: MAT.class, start: 'Tuesday', note: '' }),
      422,
    );
    await refusal(post(cookie, 'cancel-class', { key: 'NO!', start: MAT.start, note: '' }), 422);
    const missing = await refusal(
      post(cookie, 'cancel-class', {
        key: MAT.class,
        start: '2027-03-03T03:00:00.000Z',
        note: '',
      }),
      404,
    );
    expect(missing.error).toBe('There is no such class date in the timetable.');
    expect(await snapshot()).toEqual(before);

    const answer = await post(cookie, 'cancel-class', { ...classOf(MAT), note: 'Snow day.' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ cancelled: true, told: 2, refunds: 0 });
    // Ann, Ben, and her calendar's own CANCEL.
    await env.smtp.waitForMails(3);
    for (const who of ['ann@example.test', 'ben@example.test', STUDIO]) {
      const mail = env.smtp.mails.find((m) => m.envelope.to.includes(who))!;
      expect(calendarMethod(mail), who).toBe('CANCEL');
    }
    const ann = env.smtp.mails.find((m) => m.envelope.to.includes('ann@example.test'))!;
    expect(ann.text).toContain('Snow day.');
    expect(ann.text).not.toContain('ben@example.test');
    await refusal(post(cookie, 'cancel-class', { ...classOf(MAT), note: '' }), 409);
    const seen = await overview(cookie);
    const cancelled = seen.classes.find((c) => c.start === MAT.start)!;
    // Shown as cancelled by her, nobody booked: the places listed are the cancelled ones.
    expect(cancelled).toMatchObject({ cancelReason: 'studio', booked: 0 });
    expect(cancelled.cancelledAt).not.toBeNull();
    expect(cancelled.places.map((p) => p.status)).toEqual(['cancelled', 'cancelled']);
    expect((await log(cookie))[0]).toMatchObject({ action: 'cancel-class' });
  });

  test('a class that has begun cannot be cancelled', async () => {
    await place('Ann');
    setClock(new Date('2027-03-03T02:05:00Z'));
    const cookie = await signIn(env.smtp);
    const begun = await refusal(post(cookie, 'cancel-class', { ...classOf(MAT), note: '' }), 409);
    expect(begun.error).toBe('That class has begun, so it can no longer be cancelled.');
  });
});

const classOf = (which: typeof MAT) => ({ key: which.class, start: which.start });

describe('adding a single class date', () => {
  // Wednesday 3 March 2027, 10:00 in Portland.
  const WORKSHOP = {
    class: '',
    name: 'Reformer Workshop',
    date: '2027-03-03',
    time: '10:00',
    lengthMinutes: '90',
    capacity: '3',
    price: '60',
  };

  test('a class of her own: listed on the screen, bookable on /classes at its price, in the log', async () => {
    const cookie = await signIn(env.smtp);
    const answer = await post(cookie, 'add-class', WORKSHOP);
    expect(answer.status).toBe(200);
    const added = (await answer.json()) as { key: string; start: string; listedFrom: null };
    expect(added).toMatchObject({
      title: 'Reformer Workshop',
      start: '2027-03-03T18:00:00.000Z',
      listedFrom: null,
    });
    const seen = (await overview(cookie)).classes.find((c) => c.start === added.start)!;
    expect(seen).toMatchObject({
      title: 'Reformer Workshop',
      end: '2027-03-03T19:30:00.000Z',
      capacity: 3,
      priceCents: 6000,
      single: true,
      cancelledAt: null,
    });
    const listed = (await upcomingClasses()).find((c) => c.key === added.key)!;
    expect(listed).toMatchObject({ title: 'Reformer Workshop', placesLeft: 3, priceCents: 6000 });
    const booked = await bookClass(
      jsonPost(
        `${ORIGIN}/api/classes/book`,
        {
          class: added.key,
          start: added.start,
          name: 'Ann Tester',
          email: 'ann@example.test',
          ...PERSON_SPAM_CHECKS,
        },
        from(),
      ),
    );
    expect(booked.status).toBe(200);
    expect((await upcomingClasses()).find((c) => c.key === added.key)!.placesLeft).toBe(2);
    expect((await log(cookie))[0]).toMatchObject({ action: 'add-class', recordKind: 'booking' });
  });

  test('a class of her timetable on another day: its length, places and price unless she says otherwise', async () => {
    const cookie = await signIn(env.smtp);
    const answer = await post(cookie, 'add-class', {
      class: 'Mat Foundations',
      date: '2027-03-05',
      time: '12:00',
    });
    expect(answer.status).toBe(200);
    const added = (await answer.json()) as { start: string };
    const seen = (await overview(cookie)).classes.find((c) => c.start === added.start)!;
    expect(seen).toMatchObject({
      title: 'Mat Foundations',
      start: '2027-03-05T20:00:00.000Z',
      end: '2027-03-05T20:55:00.000Z',
      capacity: 4,
      minimum: 2,
      priceCents: 4500,
    });
    const overview_ = await overview(cookie);
    expect(overview_.timetable.map((c) => c.name)).toEqual([
      'Mat Foundations',
      'Saturday Reformer Group',
    ]);
  });

  test('says what the classes page will do with it: bookable until its cutoff, cancelled below its minimum; past the cutoff already, refused before anything is stored', async () => {
    const cookie = await signIn(env.smtp);
    const before = await snapshot();
    // Monday 03:59 in Portland: 12:00 today is within the 12 hours before a class's cutoff.
    const today = await refusal(
      post(cookie, 'add-class', { ...WORKSHOP, date: '2027-03-01', time: '12:00' }),
      422,
    );
    expect((today as unknown as { fieldErrors: Record<string, string> }).fieldErrors).toEqual({
      time: 'A class with fewer than 2 people booked 12 hours before it starts is cancelled then, and booking for it closes. So nobody could book this one on the classes page, and it would be cancelled at once. Please choose a time at least 12 hours from now.',
    });
    expect(await snapshot()).toEqual(before);
    const answer = await post(cookie, 'add-class', WORKSHOP);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      outlook:
        'Visitors can book it on the classes page now. If fewer than 2 people have booked by Tue, Mar 2, 10:00 PM PST, 12 hours before it starts, it is cancelled and those booked are told; otherwise they can book until it starts.',
    });
    // The screen has what it needs to say so before she presses Add.
    const { defaults, timetable } = await overview(cookie);
    expect(defaults).toMatchObject({ cutoffHours: 12, minimum: 2 });
    expect(timetable[0]).toMatchObject({ name: 'Mat Foundations', minimum: 2 });
  });

  test('a time passed, overlapping another class, or bad input: refused in words, nothing stored', async () => {
    const cookie = await signIn(env.smtp);
    expect((await post(cookie, 'add-class', WORKSHOP)).status).toBe(200);
    const before = await snapshot();
    const logged = (await log(cookie)).length;
    const refused = async (body: object, field: string, words: string) => {
      const answer = await refusal(post(cookie, 'add-class', { ...WORKSHOP, ...body }), 422);
      expect((answer as unknown as { fieldErrors: Record<string, string> }).fieldErrors).toEqual({
        [field]: words,
      });
    };
    await refused(
      { date: '2027-02-28' },
      'date',
      'That time has passed: please choose a date and time to come.',
    );
    // Mat Foundations, Tuesday 18:00 to 18:55 (the timetable's, nobody booked yet).
    await refused(
      { date: '2027-03-02', time: '17:00' },
      'time',
      'That overlaps Mat Foundations on Tuesday, March 2, 2027, 6:00 – 6:55 PM PST: please choose another time.',
    );
    // The workshop just added.
    await refused(
      { name: 'Stretch', time: '11:00', lengthMinutes: '30' },
      'time',
      'That overlaps Reformer Workshop on Wednesday, March 3, 2027, 10:00 – 11:30 AM PST: please choose another time.',
    );
    await refused({ class: 'Yoga' }, 'class', 'Please choose a class of your timetable.');
    await refused({ name: '' }, 'name', 'Please name the class, or choose one of yours.');
    await refused({ time: '25:00' }, 'time', 'Please enter a time like 18:00.');
    await refused(
      { lengthMinutes: 'an hour' },
      'lengthMinutes',
      'Please write how long it lasts in minutes, from 15 to 240.',
    );
    await refused(
      { capacity: '40' },
      'capacity',
      'Please write the number of places, from 1 to 20.',
    );
    await refused(
      { price: 'free' },
      'price',
      'Please write the price in dollars, like 45 or 22.50, or leave it empty.',
    );
    await refused(
      { time: '23:00' },
      'lengthMinutes',
      'The class would end after midnight: please start it earlier or make it shorter.',
    );
    expect(await snapshot()).toEqual(before);
    expect(await log(cookie)).toHaveLength(logged);
  });
});

describe('refunds of what was paid online', () => {
  test('an amount, then the rest: one press refunds once, never more than was paid, shown refunded', async () => {
    const id = await paidSession();
    const cookie = await signIn(env.smtp);
    let seen = await overview(cookie);
    expect(seen.bookings[0]!.payment).toMatchObject({
      state: 'paid-online',
      amountCents: 12000,
      refundableCents: 12000,
    });
    const press = crypto.randomUUID();
    const part = { kind: 'session', id, amount: '20', request: press };
    const first = await post(cookie, 'refund', part);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ refundedCents: 2000, confirmed: true });
    // The same press again (a double tap, a retry): nothing more.
    expect((await post(cookie, 'refund', part)).status).toBe(200);
    expect(standIn.refunds().map((r) => r.amount)).toEqual([2000]);
    seen = await overview(cookie);
    expect(seen.bookings[0]!.payment).toMatchObject({
      state: 'paid-online',
      refundedCents: 2000,
      refundableCents: 10000,
    });

    const before = await snapshot();
    const tooMuch = await refusal(
      post(cookie, 'refund', { ...part, amount: '101', request: crypto.randomUUID() }),
      422,
    );
    expect(tooMuch.error).toContain('At most $100 is left to refund.');
    for (const wrong of ['forty', 20, '20.505']) {
      const words = await refusal(
        post(cookie, 'refund', { ...part, amount: wrong, request: crypto.randomUUID() }),
        422,
      );
      expect(words.error).toContain('Please write the amount in dollars, like 45 or 22.50.');
    }
    await refusal(
      post(cookie, 'refund', { ...part, amount: '0', request: crypto.randomUUID() }),
      422,
    );
    await refusal(post(cookie, 'refund', { ...part, request: 'again' }), 422);
    expect(await snapshot()).toEqual(before);

    // Empty: all that is left.
    const rest = await post(cookie, 'refund', {
      ...part,
      amount: '',
      request: crypto.randomUUID(),
    });
    expect(await rest.json()).toMatchObject({ refundedCents: 10000 });
    expect(standIn.refunds().map((r) => r.amount)).toEqual([2000, 10000]);
    seen = await overview(cookie);
    expect(seen.bookings[0]!.payment).toMatchObject({ state: 'refunded', refundableCents: 0 });
    const done = await refusal(
      post(cookie, 'refund', { ...part, amount: '', request: crypto.randomUUID() }),
      409,
    );
    expect(done.error).toBe('That payment has been refunded in full already.');
    expect(standIn.refunds()).toHaveLength(2);
    const keys = standIn.requests
      .filter((r) => r.path === '/v1/refunds')
      .map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(2);
    expect(
      (await log(cookie)).filter((e) => e.action === 'refund').map((e) => e.detail.amountCents),
    ).toEqual([10000, 2000]);
  });

  test('the person is told by mail how much was refunded, once per press, naming nobody else', async () => {
    const id = await paidSession();
    await session('ada@example.test').catch(() => undefined);
    const cookie = await signIn(env.smtp);
    env.smtp.mails.length = 0;
    const press = { kind: 'session', id, amount: '20', request: crypto.randomUUID() };
    expect((await post(cookie, 'refund', press)).status).toBe(200);
    const part = await mailTo('grace@example.test', /^Refunded: \$20 of your payment for /);
    expect(part.text).toContain('has refunded $20 of your payment of $120 for the private session');
    expect(part.text).toContain('It reaches your card in 5 to 10 days.');
    expect(part.text).toContain('Your booking is unchanged.');
    // The same press again refunds nothing more and tells nothing more.
    expect((await post(cookie, 'refund', press)).status).toBe(200);
    const rest = { ...press, amount: '', request: crypto.randomUUID() };
    expect((await post(cookie, 'refund', rest)).status).toBe(200);
    const full = await mailTo('grace@example.test', /^Refunded: \$100 of your payment for /);
    expect(full.text).toContain('has refunded $100 of your payment of $120');
    const told = env.smtp.mails.filter((m) => m.envelope.to.includes('grace@example.test'));
    expect(told).toHaveLength(2);
    for (const mail of env.smtp.mails) {
      expect(mail.envelope.to).toEqual(['grace@example.test']);
      expect(`${mail.subject} ${mail.text} ${mail.html}`).not.toContain('ada@example.test');
    }
  });

  test('a class place refunded in full: the mail says so, and that the place is still booked', async () => {
    await place('Ben');
    withStripe();
    const ann = await place('Ann');
    const { rows } = await env.db.query<{ checkout_session: string }>(
      'SELECT checkout_session FROM payments WHERE booking_id = $1',
      [ann],
    );
    const event = standIn.complete(rows[0]!.checkout_session);
    const paid = await stripeWebhook(
      new Request(`${ORIGIN}/api/stripe-webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
        body: event.payload,
      }),
    );
    expect(paid.status).toBe(200);
    await mailTo('ann@example.test', /./);
    const cookie = await signIn(env.smtp);
    env.smtp.mails.length = 0;
    const answer = await post(cookie, 'refund', {
      kind: 'place',
      id: ann,
      amount: '',
      request: crypto.randomUUID(),
    });
    expect(await answer.json()).toMatchObject({ refundedCents: 4500, confirmed: true });
    const told = await mailTo('ann@example.test', /^Refunded: your payment for Mat Foundations/);
    expect(told.text).toContain('has refunded your payment of $45 for Mat Foundations');
    expect(told.text).toContain('in full');
    expect(told.text).toContain('Your place is still booked.');
    expect(`${told.text} ${told.html}`).not.toContain('ben@example.test');
    expect(`${told.text} ${told.html}`).not.toContain('Ben Tester');
  });

  test('after a part refunded on the desk, the visitor’s cancel within the policy refunds what is left, once, and says how much', async () => {
    const id = await paidSession();
    const cookie = await signIn(env.smtp);
    const part = { kind: 'session', id, amount: '20', request: crypto.randomUUID() };
    expect((await post(cookie, 'refund', part)).status).toBe(200);
    const token = sessionToken((await loadSession(id))!);
    const cancel = () => renderPage(formPost(`${ORIGIN}/book/manage`, { token, action: 'cancel' }));
    expect((await cancel()).status).toBe(303);
    expect((await cancel()).status).toBe(303);
    expect(standIn.refunds().map((r) => r.amount)).toEqual([2000, 10000]);
    const { rows } = await env.db.query<{ cancelled_by: string }>(
      'SELECT cancelled_by FROM session_bookings WHERE id = $1',
      [id],
    );
    expect(rows).toEqual([{ cancelled_by: 'visitor' }]);
    const told = await mailTo('grace@example.test', /^Cancelled/);
    expect(told.text).toContain('Your payment of $120 is refunded in full');
    expect((await overview(cookie)).bookings[0]!.payment).toMatchObject({
      state: 'refunded',
      refundedCents: 12000,
      refundableCents: 0,
    });
  });

  test('a class place part refunded on the desk, then cancelled within the policy: what is left refunded, once', async () => {
    const id = await paidPlace('Ann');
    const cookie = await signIn(env.smtp);
    const part = { kind: 'place', id, amount: '10', request: crypto.randomUUID() };
    expect((await post(cookie, 'refund', part)).status).toBe(200);
    const token = placeToken((await loadPlace(id))!);
    const cancel = () => renderPage(formPost(`${ORIGIN}/classes/manage`, { token }));
    expect((await cancel()).status).toBe(200);
    expect((await cancel()).status).toBe(200);
    expect(standIn.refunds().map((r) => r.amount)).toEqual([1000, 3500]);
    const told = await mailTo('ann@example.test', /^Cancelled/);
    expect(told.text).toContain('Your payment of $45 is refunded in full');
  });

  test('a refund Stripe refuses is a failed refund: said to her in words, counted as nothing, never sent again, and the rest can still be refunded', async () => {
    const id = await paidSession();
    const cookie = await signIn(env.smtp);
    const words = 'Charge ch_1 has been charged back; cannot issue a refund.';
    standIn.refuseNext('/v1/refunds', words);
    const press = { kind: 'session', id, amount: '20', request: crypto.randomUUID() };
    const said = `Stripe would not make this refund, so nothing was refunded (Stripe said: “${words}”). Refund it again later, or give the money back another way.`;
    expect((await refusal(post(cookie, 'refund', press), 409)).error).toBe(said);
    // The same press again: the same answer, and Stripe is not asked again.
    expect((await refusal(post(cookie, 'refund', press), 409)).error).toBe(said);
    await sendRefundsNow();
    expect(standIn.requests.filter((r) => r.path === '/v1/refunds')).toHaveLength(1);
    expect(standIn.refunds()).toEqual([]);
    expect((await overview(cookie)).bookings[0]!.payment).toMatchObject({
      state: 'paid-online',
      refundedCents: 0,
      refundPendingCents: 0,
      refundableCents: 12000,
      refused: [{ amountCents: 2000, words }],
    });
    const mail = await mailTo(STUDIO, /^Refund not made: \$20 to Grace/);
    expect(mail.text).toContain(
      "Stripe would not refund $20 of Grace Hopper's payment of $120 for the private session on Tuesday, March 2, 2027, 9:00 AM PST (Pacific Time), so nothing of it was refunded.",
    );
    expect(mail.text).toContain(`Stripe said: “${words}”`);
    expect(mail.text).toContain('Why it was being refunded: You refunded it on the desk.');
    // Nothing told to the client: nothing was refunded.
    expect(env.smtp.mails.filter((m) => m.envelope.to.includes('grace@example.test'))).toEqual([]);
    // The real remainder, all of it, can still be refunded.
    const rest = await post(cookie, 'refund', {
      ...press,
      amount: '',
      request: crypto.randomUUID(),
    });
    expect(await rest.json()).toMatchObject({ refundedCents: 12000, confirmed: true });
    expect(standIn.refunds().map((r) => r.amount)).toEqual([12000]);
  });

  test('the same refund pressed ten times at once: one refund, and every press answered 200', async () => {
    const id = await paidSession();
    const cookie = await signIn(env.smtp);
    const body = { kind: 'session', id, amount: '20', request: crypto.randomUUID() };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(cookie, 'refund', body)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(standIn.refunds().map((r) => r.amount)).toEqual([2000]);
    const { rows } = await env.db.query('SELECT 1 FROM payment_refunds');
    expect(rows).toHaveLength(1);
  });

  test('two presses at once of the same request: one refund', async () => {
    const id = await paidSession();
    const cookie = await signIn(env.smtp);
    const body = { kind: 'session', id, amount: '', request: crypto.randomUUID() };
    const answers = await Promise.all([post(cookie, 'refund', body), post(cookie, 'refund', body)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(standIn.refunds()).toHaveLength(1);
    const { rows } = await env.db.query('SELECT 1 FROM payment_refunds');
    expect(rows).toHaveLength(1);
  });

  test('a booking paid at the studio, or not at all, has nothing to refund here', async () => {
    const id = await session();
    const cookie = await signIn(env.smtp);
    const body = { kind: 'session', id, amount: '', request: crypto.randomUUID() };
    const refused = await refusal(post(cookie, 'refund', body), 409);
    expect(refused.error).toMatch(/^That booking was not paid online/);
    expect(standIn.requests).toEqual([]);
  });

  test('a session paid online cancelled by the studio: refunded in full, and the mail says so', async () => {
    const id = await paidSession();
    const cookie = await signIn(env.smtp);
    env.smtp.mails.length = 0;
    const answer = await post(cookie, 'cancel', { kind: 'session', id, note: '' });
    expect(await answer.json()).toMatchObject({ cancelled: true, refundedCents: 12000 });
    await env.smtp.waitForMails(2);
    expect(standIn.refunds().map((r) => r.amount)).toEqual([12000]);
    const told = env.smtp.mails.find((m) => m.envelope.to.includes('grace@example.test'))!;
    expect(told.text).toContain('Your payment of $120 is refunded in full');
    expect((await overview(cookie)).bookings[0]!.payment).toMatchObject({ state: 'refunded' });
  });
});

describe('a class whose places were paid online', () => {
  test('cancelled on the desk: each payment refunded in full, once, and the mails say so', async () => {
    const ann = await place('Ann');
    await place('Ben');
    // Ann paid online (as the checkout records a payment: a paid row with Stripe's reference).
    await paidOnline(ann);
    const cookie = await signIn(env.smtp);
    const before = await overview(cookie);
    const paid = before.classes.find((c) => c.start === MAT.start)!.places[0]!;
    expect(paid.payment).toMatchObject({ state: 'paid-online', refundableCents: 4500 });
    env.smtp.mails.length = 0;
    const answer = await post(cookie, 'cancel-class', { ...classOf(MAT), note: '' });
    expect(await answer.json()).toMatchObject({ told: 2, refunds: 1 });
    const { rows } = await env.db.query<{ reason: string; amount_cents: number }>(
      'SELECT reason, amount_cents FROM payment_refunds',
    );
    expect(rows).toEqual([{ reason: 'class-cancelled', amount_cents: 4500 }]);
    await env.smtp.waitForMails(3);
    const toAnn = env.smtp.mails.find((m) => m.envelope.to.includes('ann@example.test'))!;
    expect(toAnn.text).toContain('Your payment of $45 is refunded in full');
    expect(toAnn.text).not.toContain('Nothing is due');
    const toBen = env.smtp.mails.find((m) => m.envelope.to.includes('ben@example.test'))!;
    expect(toBen.text).toContain('Nothing is due');
    const after = await overview(cookie);
    const cancelled = after.classes.find((c) => c.start === MAT.start)!;
    expect(cancelled.places.find((p) => p.id === ann)!.payment.state).toBe('refunded');
  });
});

describe('the CSV for her bookkeeping', () => {
  test('each session and place on her clock (date and time apart), with phone, waiver, no-show, price, payment, Stripe reference and fee, and refunds', async () => {
    // Booked before the keys are set: paid at the studio (with them it would be paid online).
    // Ann's class place asks no phone: the CSV gives her waiver's.
    await signWaiver({ email: 'ann@example.test', phone: '(503) 555-0177' });
    const placeId = await place('Ann');
    const paidOnline = await paidSession();
    const cookie = await signIn(env.smtp);
    await post(cookie, 'paid', { kind: 'place', id: placeId });
    const press = { kind: 'session', id: paidOnline, amount: '20', request: crypto.randomUUID() };
    expect((await post(cookie, 'refund', press)).status).toBe(200);
    const { rows } = await env.db.query<{ payment_intent: string }>(
      'SELECT payment_intent FROM payments',
    );
    const answer = await desk(
      '/api/records/export/bookings?from=2027-03-02&to=2027-03-02&tz=America/Los_Angeles',
      { cookie },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toMatch(/bookings-\d{4}-\d{2}-\d{2}\.csv/);
    const lines = (await answer.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    // Her studio's clock, a date and a time a spreadsheet reads as such, and no number first.
    expect(lines[0]).toBe(
      'Date,Starts at (Pacific Time),Kind,What,Name,Email,Phone,Waiver,Status,No-show,Price,Payment,Paid on (Pacific Time),Recorded paid by,Paid online,Stripe reference,Stripe fee,Refunded,Refunds,Booking number',
    );
    expect(lines).toHaveLength(3);
    const [session, mat] = lines.slice(1).map((line) => line.split(','));
    expect(session!.slice(0, 12)).toEqual([
      '2027-03-02',
      '09:00',
      'Session',
      'Private Session',
      'Grace Hopper',
      'grace@example.test',
      "'+1 503 555 0123",
      'Nothing on file',
      'Booked',
      'No',
      '120.00',
      'Paid online',
    ]);
    expect(session![12]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(session!.slice(13, 16)).toEqual(['Stripe', '120.00', rows[0]!.payment_intent]);
    // Stripe's fee, from the charge's balance transaction (the stand-in's: 2.9% of $120 + 30¢);
    // empty would be "not reported".
    expect(session![16]).toBe('3.78');
    expect(session![17]).toBe('20.00');
    expect(session![18]).toMatch(/^20\.00 succeeded re_\w+$/);
    expect(session![19]).toBe(paidOnline);
    // Tuesday's 6 PM class is Tuesday 18:00 in her spreadsheet, not Wednesday 02:00.
    expect(mat!.slice(0, 12)).toEqual([
      '2027-03-02',
      '18:00',
      'Class',
      'Mat Foundations',
      'Ann Tester',
      'ann@example.test',
      '(503) 555-0177',
      'Covered',
      'Booked',
      'No',
      '45.00',
      'Paid at the studio',
    ]);
    expect(mat![13]).toBe(STAFF);
    expect((await log(cookie))[0]).toMatchObject({ action: 'export-bookings' });
  });
});
