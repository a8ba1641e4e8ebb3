/**
 * Booking the free consultation, on a real PostgreSQL server and a real SMTP server, with the
 * studio's clock set by the test (never a sleep): the page of free slots, a booking with its
 * invites, the slot then gone, a slot taken meanwhile, the checks of notice, horizon and buffer,
 * the manage link (GET shows, POST changes), and the reminder a day before.
 */
import { resolve } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import bookConsultation from '../../functions/book-consultation';
import { renderPage } from '../fixtures/on-demand';
import retryMail from '../../functions/retry-mail';
import { loadBooking, manageToken } from '../../src/server/booking/store';
import { setClock } from '../../src/server/platform/clock';
import { useFunctionEnv } from '../fixtures/function-env';
import type { ReceivedMail } from '../fixtures/smtp';
import { bookingBody, bookingFields } from '../fixtures/submissions';
import { formPost, jsonPost } from './harness';

const env = useFunctionEnv();
const SITE = 'http://127.0.0.1:8888';
const STUDIO = 'studio-inbox@example.test';

// Monday 1 March 2027, 03:59 in Portland (11:59 UTC; the clock runs on from there): the first
// slot is 12 hours' notice away, at 16:00 Portland time; Tuesday's start at 09:00 (17:00 UTC).
const NOW = new Date('2027-03-01T11:59:00Z');
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const TUESDAY_915 = '2027-03-02T17:15:00Z';
const TUESDAY_930 = '2027-03-02T17:30:00Z';
const TUESDAY_945 = '2027-03-02T17:45:00Z';

beforeAll(() => {
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
  process.env.CONTACT_TO = STUDIO;
  process.env.SITE_URL = SITE;
});
afterAll(() => {
  delete process.env.PAGES_DIR;
  delete process.env.CONTACT_TO;
  delete process.env.SITE_URL;
});
beforeEach(() => setClock(NOW));
afterEach(() => setClock(undefined));

async function page(): Promise<string> {
  const answer = await renderPage(new Request(`${SITE}/consultation`));
  expect(answer.status).toBe(200);
  return answer.text();
}

const offered = (html: string) =>
  [...html.matchAll(/name="slot" value="([^"]+)"/g)].map((m) => m[1]);

function book(slot: string, overrides: Record<string, unknown> = {}) {
  return bookConsultation(jsonPost(`${SITE}/api/consultation/book`, bookingBody(slot, overrides)));
}

function calendarPart(mail: ReceivedMail) {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar');
  expect(part, `no text/calendar part in "${mail.subject}"`).toBeDefined();
  const event = Object.values(ical.sync.parseICS(part!.content.toString('utf8'))).find(
    (c): c is VEvent => c?.type === 'VEVENT',
  )!;
  return { method: String(part!.contentType && part!.headers.get('content-type')), event };
}

/** The manage token of a stored booking, opened from its row as the site opens it. */
const tokenOf = async (id: string) => manageToken((await loadBooking(id))!);

const mailTo = (to: string) => env.smtp.mails.filter((mail) => mail.envelope.to.includes(to));

describe('the page of free slots', () => {
  test('lists the slots from the notice on, with its own security headers and a minute of shared cache', async () => {
    const answer = await renderPage(new Request(`${SITE}/consultation`));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-security-policy')).toContain("'sha256-fixture'");
    expect(answer.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
    expect(answer.headers.get('netlify-cdn-cache-control')).toMatch(
      /s-maxage=45, stale-while-revalidate=15/,
    );
    const slots = offered(await answer.text());
    // 12 hours' notice from 03:59: Monday's 15:00-17:00 window from 16:00 on.
    expect(slots[0]).toBe('2027-03-02T00:00:00Z');
    expect(slots).toContain(TUESDAY_9);
    expect(slots.every((slot) => Date.parse(slot) >= NOW.getTime() + 12 * 3_600_000)).toBe(true);
  });
});

describe('booking a slot', () => {
  test('stores the booking, mails the visitor and the studio a REQUEST invite, and queues the reminder a day before', async () => {
    const answer = await book(TUESDAY_9);
    expect(answer.status).toBe(200);
    const body = await answer.json();
    expect(body).toMatchObject({
      success: true,
      booking: {
        start: '2027-03-02T17:00:00.000Z',
        end: '2027-03-02T17:15:00.000Z',
        day: 'Tuesday, March 2, 2027',
        time: '9:00 – 9:15 AM PST',
        place: 'At the studio: 2140 SE Division St, Portland, OR 97202',
      },
    });
    const [row] = (
      await env.db.query<{ id: string; sequence: number; held: string; origin: string }>(
        `SELECT id, sequence, held::text, origin FROM consultation_bookings`,
      )
    ).rows;
    expect(row).toMatchObject({ sequence: 0, origin: SITE });
    // The consultation and the 15-minute buffer after it.
    expect(row.held).toBe('["2027-03-02 17:00:00+00","2027-03-02 17:30:00+00")');
    expect(body.booking.manage).toBe(`/consultation/manage?token=${await tokenOf(row.id)}`);

    await env.smtp.waitForMails(2);
    const [visitor] = mailTo('grace@example.test');
    const [studio] = mailTo(STUDIO);
    expect(visitor.subject).toBe('Your consultation on Tuesday, March 2 at 9:00 AM PST');
    expect(visitor.text).toContain('Hello Grace,');
    expect(visitor.text).toContain(
      'When: Tuesday, March 2, 2027, 9:00 – 9:15 AM PST (Pacific Time)',
    );
    expect(visitor.text).toContain(`${SITE}/consultation/manage?token=${await tokenOf(row.id)}`);
    expect(visitor.text).toContain(`${SITE}/waiver`);
    // What the visitor typed beyond the first name goes to the studio only.
    for (const typed of ['Hopper', 'lower back', '555 0123']) {
      expect(visitor.text).not.toContain(typed);
      expect(visitor.html || '').not.toContain(typed);
    }
    expect(studio.subject).toBe(
      'Consultation booked: Grace Hopper, Tuesday, March 2 at 9:00 AM PST',
    );
    expect(studio.text).toContain('My lower back after long days at the desk.');
    expect(studio.replyTo?.text).toBe('grace@example.test');

    for (const mail of [visitor, studio]) {
      const { event } = calendarPart(mail);
      expect(event.uid).toBe(`booking-${row.id}@127.0.0.1`);
      expect(event.start.toISOString()).toBe('2027-03-02T17:00:00.000Z');
      expect(event.end?.toISOString()).toBe('2027-03-02T17:15:00.000Z');
      expect(Number(event.sequence)).toBe(0);
      // A reminder an hour before, as the calendar reads it.
      expect((event as typeof event & { alarms?: unknown[] }).alarms).toEqual([
        expect.objectContaining({ action: 'DISPLAY', trigger: '-PT1H' }),
      ]);
      const part = mail.attachments.find((a) => a.contentType === 'text/calendar')!;
      expect(part.headers.get('content-type')).toMatchObject({ params: { method: 'REQUEST' } });
    }

    const outbox = (
      await env.db.query<{
        kind: string;
        ref: string;
        next_attempt_at: Date;
        sent_at: Date | null;
      }>(`SELECT kind, ref, next_attempt_at, sent_at FROM mail_outbox ORDER BY id`)
    ).rows;
    expect(outbox.map((mail) => [mail.kind, mail.ref, mail.sent_at !== null])).toEqual([
      ['booking-visitor', `${row.id}:0`, true],
      ['booking-studio', `${row.id}:0`, true],
      ['booking-reminder', `${row.id}:0`, false],
    ]);
    expect(new Date(outbox[2].next_attempt_at).toISOString()).toBe('2027-03-01T17:00:00.000Z');
  });

  test('a slot just booked is no longer on the page, nor is one inside its buffer', async () => {
    expect(offered(await page())).toEqual(expect.arrayContaining([TUESDAY_9, TUESDAY_915]));
    expect((await book(TUESDAY_9)).status).toBe(200);
    const slots = offered(await page());
    expect(slots).not.toContain(TUESDAY_9);
    // 9:15 would end at 9:30 plus its own buffer: it touches 9:00's held 9:00-9:30.
    expect(slots).not.toContain(TUESDAY_915);
    expect(slots).toContain(TUESDAY_930);
  });

  test('a slot taken between loading and sending gets 409 with the nearest free ones, and stores nothing', async () => {
    expect((await book(TUESDAY_9)).status).toBe(200);
    const answer = await book(TUESDAY_9, { email: 'alan@example.test', name: 'Alan Turing' });
    expect(answer.status).toBe(409);
    const body = await answer.json();
    expect(body).toMatchObject({
      success: false,
      error: 'That time has just been taken. Please choose another one.',
    });
    expect(body.nearest.map((slot: { start: string }) => slot.start)).toEqual([
      TUESDAY_930,
      TUESDAY_945,
      '2027-03-02T18:00:00Z',
    ]);
    expect(body.nearest[0]).toEqual({
      start: TUESDAY_930,
      day: 'Tuesday, March 2',
      time: '9:30 AM PST',
    });
    expect(await env.count('consultation_bookings')).toBe(1);
  });

  test('inside the notice the time is refused as taken (409); beyond the horizon or off the grid it is not a slot (422)', async () => {
    // Monday 15:45 Portland: in the window, but 11 h 46 min away.
    const soon = await book('2027-03-01T23:45:00Z');
    expect(soon.status).toBe(409);
    // Twenty-two days ahead: past the 21-day horizon.
    const far = await book('2027-03-23T17:00:00Z');
    expect(far.status).toBe(422);
    expect((await far.json()).fieldErrors).toEqual({
      slot: 'Please choose one of the times offered.',
    });
    // 9:05 is no slot's start.
    expect((await book('2027-03-02T17:05:00Z')).status).toBe(422);
    // Not an instant at all.
    const garbage = await book('next tuesday');
    expect(garbage.status).toBe(422);
    expect(await env.count('consultation_bookings')).toBe(0);
    expect(env.smtp.mails).toHaveLength(0);
  });

  test('bad fields get 422 naming each field, and store and send nothing', async () => {
    const answer = await book(TUESDAY_9, { name: '', email: 'not-an-address', phone: '12' });
    expect(answer.status).toBe(422);
    expect((await answer.json()).fieldErrors).toEqual({
      name: 'Please enter your name.',
      email: 'Please enter a valid e-mail address, like name@example.com.',
      phone: 'Please enter a phone number with at least 7 digits.',
    });
    expect(await env.count('consultation_bookings')).toBe(0);
  });

  test('the same submission sent twice books once, mails once, and is answered alike', async () => {
    const submissionId = crypto.randomUUID();
    const first = await book(TUESDAY_9, { submissionId });
    const second = await book(TUESDAY_9, { submissionId });
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual(await first.json());
    expect(await env.count('consultation_bookings')).toBe(1);
    expect(await env.count('mail_outbox')).toBe(3);
  });

  test('a replayed submission id with other details gets 409 and nothing of the booking', async () => {
    const submissionId = crypto.randomUUID();
    const first = await book(TUESDAY_9, { submissionId });
    expect(first.status).toBe(200);
    const link = ((await first.json()) as { booking: { manage: string } }).booking.manage;
    for (const other of [
      { submissionId, name: 'Mallory' },
      { submissionId, email: 'mallory@example.test' },
    ]) {
      const replay = await book(TUESDAY_9, other);
      expect(replay.status).toBe(409);
      const text = await replay.text();
      expect(text).toContain('already sent with other details');
      expect(text).not.toContain(link.split('token=')[1]);
      expect(text).not.toContain('Tuesday');
    }
    const elsewhere = await book(TUESDAY_915, { submissionId });
    expect(elsewhere.status).toBe(409);
    expect(await elsewhere.text()).not.toContain(link.split('token=')[1]);
    expect(await env.count('consultation_bookings')).toBe(1);
    expect(await env.count('mail_outbox')).toBe(3);
  });

  test('one e-mail address books three consultations a day; the fourth gets 429', async () => {
    vi.stubEnv('CONSULTATION_UPCOMING_PER_EMAIL', '10');
    const slots = [
      TUESDAY_9,
      '2027-03-02T18:00:00Z',
      '2027-03-02T19:00:00Z',
      '2027-03-03T17:00:00Z',
    ];
    const statuses = [];
    for (const slot of slots) statuses.push((await book(slot)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await env.count('consultation_bookings')).toBe(3);
    vi.unstubAllEnvs();
  });

  test('a booking less than a day ahead gets no reminder', async () => {
    expect((await book('2027-03-02T00:00:00Z')).status).toBe(200);
    const kinds = (await env.db.query<{ kind: string }>(`SELECT kind FROM mail_outbox`)).rows;
    expect(kinds.map((row) => row.kind).sort()).toEqual(['booking-studio', 'booking-visitor']);
  });
});

describe('consultations to come, per person and per network', () => {
  const from = (ip: string, slot: string, overrides: Record<string, unknown> = {}) =>
    bookConsultation(jsonPost(`${SITE}/api/consultation/book`, bookingBody(slot, overrides)), {
      ip,
    } as never);
  const slots = [
    '2027-03-02T17:00:00Z',
    '2027-03-02T18:00:00Z',
    '2027-03-02T19:00:00Z',
    '2027-03-03T17:00:00Z',
    '2027-03-03T18:00:00Z',
    '2027-03-03T19:00:00Z',
  ];

  test('one address holds two at once, however written; the third is refused in words to act on', async () => {
    expect((await from('192.0.2.1', slots[0]!, { email: 'ada@example.test' })).status).toBe(200);
    expect((await from('198.51.100.1', slots[1]!, { email: 'Ada+2@Example.test' })).status).toBe(
      200,
    );
    const third = await from('203.0.113.1', slots[2]!, { email: 'ada+3@example.test' });
    expect(third.status).toBe(409);
    const { error } = (await third.json()) as { error: string };
    expect(error).toContain('already has 2 consultations booked');
    expect(error).toContain('move one with the link in its confirmation e-mail');
    expect(await env.count('consultation_bookings')).toBe(2);
    // Once one of them is over, the address may book again.
    setClock(new Date('2027-03-02T17:31:00Z'));
    expect((await from('203.0.113.1', slots[3]!, { email: 'ada@example.test' })).status).toBe(200);
  });

  test('one network (an IPv4 /24, an IPv6 /56) holds four at once under any addresses', async () => {
    for (const [i, slot] of slots.slice(0, 4).entries()) {
      const answer = await from(`198.51.100.${i + 10}`, slot, { email: `guest${i}@catchall.test` });
      expect(answer.status).toBe(200);
    }
    const fifth = await from('198.51.100.200', slots[4]!, { email: 'guest9@catchall.test' });
    expect(fifth.status).toBe(409);
    expect(((await fifth.json()) as { error: string }).error).toContain('from your network');
    // Another network is not held back.
    expect((await from('203.0.113.7', slots[4]!, { email: 'zoe@example.test' })).status).toBe(200);
    // IPv6: a /56 is one network, whichever /64 in it.
    for (const [i, slot] of [
      '2027-03-04T17:00:00Z',
      '2027-03-04T18:00:00Z',
      '2027-03-04T19:00:00Z',
      '2027-03-05T17:00:00Z',
    ].entries()) {
      const answer = await from(`2001:db8:1:${(0x10 + i).toString(16)}::1`, slot, {
        email: `v6-${i}@catchall.test`,
      });
      expect(answer.status).toBe(200);
    }
    const v6 = await from('2001:db8:1:ff::9', '2027-03-05T18:00:00Z', {
      email: 'v6-9@catchall.test',
    });
    expect(v6.status).toBe(409);
  });

  test('bookings sent at once from one address are counted in turn: two are stored', async () => {
    const answers = await Promise.all(
      slots
        .slice(0, 3)
        .map((slot, i) => from(`192.0.2.${i + 1}`, slot, { email: 'race@example.test' })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 409]);
    expect(await env.count('consultation_bookings')).toBe(2);
  });

  test('the network is stored only as a keyed hash', async () => {
    expect((await from('198.51.100.23', slots[0]!)).status).toBe(200);
    const { rows } = await env.db.query<{ client_network: string }>(
      'SELECT client_network FROM consultation_bookings',
    );
    expect(rows[0]!.client_network).toMatch(/^[\w-]{43}$/);
    expect(rows[0]!.client_network).not.toContain('198.51');
  });
});

describe('a refused post to a booking’s page', () => {
  test('is answered with the refusal page in the site’s layout, never cached, and changes nothing', async () => {
    const { token } = await booked();
    const answer = await renderPage(
      formPost(
        `${SITE}/consultation/manage`,
        { token, action: 'cancel' },
        { origin: 'https://evil.example' },
      ),
    );
    expect(answer.status).toBe(403);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-robots-tag')).toMatch(/noindex/);
    const html = await answer.text();
    expect(html).toContain('>The consultation could not be booked</h1>');
    expect(html).toContain('Skip to content');
    expect(html).toContain('href="/consultation"');
    expect(html).toContain('Return to the free times');
    expect(html).toContain("browser's Back button");
    expect(html).toContain('href="mailto:hello@stillpointpilates.studio"');
    const [row] = (
      await env.db.query<{ cancelled_at: Date | null }>(
        'SELECT cancelled_at FROM consultation_bookings',
      )
    ).rows;
    expect(row!.cancelled_at).toBeNull();
  });
});

describe('with the database down', () => {
  test('the page says so (503, never cached), and a booking gets 503 and stores nothing', async () => {
    await env.whileDown(async () => {
      const answer = await renderPage(new Request(`${SITE}/consultation`));
      expect(answer.status).toBe(503);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('netlify-cdn-cache-control')).toBeNull();
      expect(await answer.text()).toContain('The free times cannot be shown just now');
      const refused = await book(TUESDAY_9);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      const manage = await renderPage(
        new Request(`${SITE}/consultation/manage?token=${'x'.repeat(43)}`),
      );
      expect(manage.status).toBe(503);
      expect(manage.headers.get('retry-after')).toBe('30');
      expect(await manage.text()).toContain('Your consultation cannot be opened just now');
    });
    expect(await env.count('consultation_bookings')).toBe(0);
  });
});

describe('booking without JavaScript', () => {
  test('a plain form post books and is sent (303) to the booking’s own page', async () => {
    const answer = await bookConsultation(
      formPost(`${SITE}/api/consultation/book`, bookingFields(TUESDAY_9)),
    );
    expect(answer.status).toBe(303);
    const [row] = (
      await env.db.query<{ id: string; timed: boolean }>(
        `SELECT id, timed FROM consultation_bookings`,
      )
    ).rows;
    expect(row.timed).toBe(false);
    expect(answer.headers.get('location')).toBe(
      `/consultation/manage?token=${await tokenOf(row.id)}&booked=1`,
    );
    const shown = await renderPage(new Request(`${SITE}${answer.headers.get('location')}`));
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('Your consultation is booked!');
    expect(html).toContain('Tuesday, March 2, 2027');
  });

  test('the same form posted again from the same network is told it was sent, never given the link', async () => {
    const post = () =>
      bookConsultation(formPost(`${SITE}/api/consultation/book`, bookingFields(TUESDAY_9)));
    const first = await post();
    expect(first.headers.get('location')).toMatch(/token=/);
    const again = await post();
    expect(again.status).toBe(303);
    const location = again.headers.get('location')!;
    expect(location).not.toMatch(/token/);
    const shown = await renderPage(new Request(`${SITE}${location}`));
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('This form was already sent');
    expect(html).not.toContain('Tuesday, March 2, 2027');
    expect(await env.count('consultation_bookings')).toBe(1);
  });

  test('a slot taken meanwhile answers a page offering the nearest ones, with what was typed kept', async () => {
    expect((await book(TUESDAY_9)).status).toBe(200);
    const fields = bookingFields(TUESDAY_9, {
      name: 'Ada <b>Lovelace</b>',
      topic: 'Pilates & "posture"',
    });
    const sent = await bookConsultation(formPost(`${SITE}/api/consultation/book`, fields));
    // The browser posts the same form again to the page (307): nothing typed is in the address.
    expect(sent.status).toBe(307);
    expect(sent.headers.get('location')).toBe('/consultation/taken');
    expect(sent.headers.get('cache-control')).toBe('no-store');
    const answer = await renderPage(formPost(`${SITE}/consultation/taken`, fields));
    expect(answer.status).toBe(409);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-robots-tag')).toMatch(/noindex/);
    const html = await answer.text();
    expect(html).toContain('<title>That time has just been taken |');
    expect(html).toContain('That time has just been taken');
    expect(html).toContain(`value="${TUESDAY_930}"`);
    // Astro escapes `&` and `"` in an attribute; inside its quotes `<` is only text.
    expect(html).toContain('name="name" value="Ada <b>Lovelace</b>"');
    expect(html).toContain('name="topic" value="Pilates &amp; &quot;posture&quot;"');
    expect(html.replace(/"[^"]*"/g, '""')).not.toContain('<b>');
  });

  test('the taken page books nothing and shows nothing but to the form sent again from the site', async () => {
    const fields = bookingFields(TUESDAY_9, { name: 'Mallory' });
    const opened = await renderPage(new Request(`${SITE}/consultation/taken`));
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/consultation');
    const elsewhere = await renderPage(
      formPost(`${SITE}/consultation/taken`, fields, { origin: 'https://evil.example' }),
    );
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.get('location')).toBe('/consultation');
    const sent = await renderPage(formPost(`${SITE}/consultation/taken`, fields));
    expect(sent.status).toBe(409);
    expect(await sent.text()).toContain('name="name" value="Mallory"');
    expect(await env.count('consultation_bookings')).toBe(0);
  });
});

/** Books `slot` and answers its id and its manage page's address. */
async function booked(slot = TUESDAY_9, overrides: Record<string, unknown> = {}) {
  const answer = await book(slot, overrides);
  expect(answer.status).toBe(200);
  const body = (await answer.json()) as { booking: { manage: string } };
  const token = new URL(body.booking.manage, SITE).searchParams.get('token')!;
  const [row] = (
    await env.db.query<{ id: string }>(
      `SELECT id FROM consultation_bookings WHERE manage_token_sha256 = encode(sha256($1::bytea), 'hex')`,
      [token],
    )
  ).rows;
  return { id: row.id, token, manage: `${SITE}${body.booking.manage}` };
}

const manage = (token: string, fields: Record<string, string>) =>
  renderPage(formPost(`${SITE}/consultation/manage`, { token, ...fields }));

async function bookingRow(id: string) {
  const { rows } = await env.db.query<{
    starts_at: Date;
    sequence: number;
    cancelled_at: Date | null;
    cancelled_by: string | null;
  }>(
    `SELECT starts_at, sequence, cancelled_at, cancelled_by FROM consultation_bookings WHERE id = $1`,
    [id],
  );
  return rows[0];
}

describe('the manage link', () => {
  test('a GET shows the booking with its forms, changes nothing, and is personal (no-store, noindex, no referrer beyond the site)', async () => {
    const { id, manage: url } = await booked();
    for (let i = 0; i < 3; i += 1) {
      const answer = await renderPage(new Request(url));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-robots-tag')).toBe('noindex, nofollow');
      expect(answer.headers.get('referrer-policy')).toBe('same-origin');
      expect(answer.headers.get('content-security-policy')).toContain("'sha256-fixture'");
      const html = await answer.text();
      expect(html).toContain('<title>Your consultation | Still Point Pilates</title>');
      expect(html).toContain('Choose another time');
      expect(html).toContain('Cancel my consultation');
      // The slots to move to: the booking's own time does not stand in the way of its
      // neighbours, and is not offered as another time.
      expect(offered(html)).toContain(TUESDAY_915);
      expect(offered(html)).not.toContain(TUESDAY_9);
    }
    expect(await bookingRow(id)).toMatchObject({ sequence: 0, cancelled_at: null });
  });

  test('an unknown token is a 404 page that opens nothing', async () => {
    const answer = await renderPage(
      new Request(`${SITE}/consultation/manage?token=${'x'.repeat(43)}`),
    );
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain('This link does not open a consultation');
  });

  test('a POST cancels: the visitor and the studio get METHOD:CANCEL with the same UID and a higher SEQUENCE; a second POST changes nothing', async () => {
    const { id, token } = await booked();
    await env.smtp.waitForMails(2);
    const invite = calendarPart(mailTo('grace@example.test')[0]).event;

    const answer = await manage(token, { action: 'cancel' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(
      `/consultation/manage?token=${token}&done=cancelled`,
    );
    expect(await bookingRow(id)).toMatchObject({ sequence: 1, cancelled_by: 'visitor' });
    await env.smtp.waitForMails(4);
    const cancellations = env.smtp.mails.slice(2);
    expect(cancellations.map((mail) => mail.envelope.to[0]).sort()).toEqual([
      'grace@example.test',
      STUDIO,
    ]);
    for (const mail of cancellations) {
      const part = mail.attachments.find((a) => a.contentType === 'text/calendar')!;
      expect(part.headers.get('content-type')).toMatchObject({ params: { method: 'CANCEL' } });
      const { event } = calendarPart(mail);
      expect(event.uid).toBe(invite.uid);
      expect(Number(event.sequence)).toBeGreaterThan(Number(invite.sequence));
      expect(event.status).toBe('CANCELLED');
    }
    expect(mailTo('grace@example.test')[1].subject).toBe(
      'Cancelled: your consultation on Tuesday, March 2 at 9:00 AM PST',
    );

    expect((await manage(token, { action: 'cancel' })).status).toBe(303);
    expect(await bookingRow(id)).toMatchObject({ sequence: 1 });
    expect(await env.count('mail_outbox')).toBe(5);
    // The time is free again.
    expect(offered(await page())).toContain(TUESDAY_9);
  });

  test('a POST moves it: the new time, SEQUENCE 1 invites to both, the old reminder retired and a new one queued', async () => {
    const { id, token } = await booked();
    const answer = await manage(token, { action: 'move', slot: TUESDAY_945 });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/consultation/manage?token=${token}&done=moved`);
    const row = await bookingRow(id);
    expect(new Date(row.starts_at).toISOString()).toBe('2027-03-02T17:45:00.000Z');
    expect(row.sequence).toBe(1);
    await env.smtp.waitForMails(4);
    const moved = mailTo('grace@example.test')[1];
    expect(moved.subject).toBe('Your consultation has moved to Tuesday, March 2 at 9:45 AM PST');
    const { event } = calendarPart(moved);
    expect(event.start.toISOString()).toBe('2027-03-02T17:45:00.000Z');
    expect(Number(event.sequence)).toBe(1);
    expect(event.uid).toBe(calendarPart(mailTo('grace@example.test')[0]).event.uid);

    // The day before the old time: the old reminder is retired, the new one sent, once each.
    setClock(new Date('2027-03-01T17:50:00Z'));
    expect(await (await retry()).json()).toMatchObject({ sent: 1, retired: 1, failed: 0 });
    expect(await (await retry()).json()).toMatchObject({ sent: 0, retired: 0 });
    const reminders = mailTo('grace@example.test').filter((mail) =>
      mail.subject?.startsWith('Reminder'),
    );
    expect(reminders.map((mail) => mail.subject)).toEqual([
      'Reminder: your consultation on Tuesday, March 2 at 9:45 AM PST',
    ]);
    // The slot it left is free again; the one it took is not.
    const slots = offered(await page());
    expect(slots).toContain(TUESDAY_9);
    expect(slots).not.toContain(TUESDAY_945);
  });

  test('moving onto a taken slot answers 409 on the page with the nearest free ones, and changes nothing', async () => {
    const { id, token } = await booked();
    await booked(TUESDAY_945, { email: 'alan@example.test', name: 'Alan Turing' });
    const answer = await manage(token, { action: 'move', slot: TUESDAY_945 });
    expect(answer.status).toBe(409);
    const html = await answer.text();
    expect(html).toContain('That time has just been taken');
    expect(html).toContain('The nearest free times');
    expect(await bookingRow(id)).toMatchObject({ sequence: 0 });
  });

  test('moving onto its own time answers 422 on the page, and changes and sends nothing', async () => {
    const { id, token } = await booked();
    await env.smtp.waitForMails(2);
    const outboxBefore = await env.count('mail_outbox');
    const answer = await manage(token, { action: 'move', slot: TUESDAY_9 });
    expect(answer.status).toBe(422);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const html = await answer.text();
    expect(html).toContain('Please choose one of the times offered.');
    expect(offered(html)).not.toContain(TUESDAY_9);
    expect(await bookingRow(id)).toMatchObject({ sequence: 0, cancelled_at: null });
    expect(await env.count('mail_outbox')).toBe(outboxBefore);
  });

  test('a POST from another site is refused (403) and changes nothing', async () => {
    const { id, token } = await booked();
    const answer = await renderPage(
      new Request(`${SITE}/consultation/manage`, {
        method: 'POST',
        headers: {
          origin: 'https://evil.example',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token, action: 'cancel' }).toString(),
      }),
    );
    expect(answer.status).toBe(403);
    expect(await bookingRow(id)).toMatchObject({ cancelled_at: null });
  });
});

const retry = () => retryMail();

describe('the reminder', () => {
  test('is sent once, a day before, by the outbox as the clock gets there', async () => {
    await booked();
    expect(await (await retry()).json()).toMatchObject({ sent: 0 });
    setClock(new Date('2027-03-01T16:59:00Z'));
    expect(await (await retry()).json()).toMatchObject({ sent: 0 });
    setClock(new Date('2027-03-01T17:00:30Z'));
    expect(await (await retry()).json()).toMatchObject({ sent: 1 });
    setClock(new Date('2027-03-02T12:00:00Z'));
    expect(await (await retry()).json()).toMatchObject({ sent: 0 });
    const reminders = mailTo('grace@example.test').filter((mail) =>
      mail.subject?.startsWith('Reminder'),
    );
    expect(reminders).toHaveLength(1);
    expect(reminders[0].text).toContain(
      'When: Tuesday, March 2, 2027, 9:00 – 9:15 AM PST (Pacific Time)',
    );
    expect(reminders[0].attachments).toHaveLength(0);
  });

  test('is never sent for a booking cancelled before it was due', async () => {
    const { token } = await booked();
    expect((await manage(token, { action: 'cancel' })).status).toBe(303);
    setClock(new Date('2027-03-01T17:01:00Z'));
    expect(await (await retry()).json()).toMatchObject({ sent: 0, retired: 1 });
    expect(env.smtp.mails.some((mail) => mail.subject?.startsWith('Reminder'))).toBe(false);
    const [reminder] = (
      await env.db.query<{ retired_at: Date | null; sent_at: Date | null; failed_at: Date | null }>(
        `SELECT retired_at, sent_at, failed_at FROM mail_outbox WHERE kind = 'booking-reminder'`,
      )
    ).rows;
    expect(reminder.retired_at).not.toBeNull();
    expect(reminder.sent_at).toBeNull();
    expect(reminder.failed_at).toBeNull();
  });
});

describe('the database’s own guarantee', () => {
  test('Postgres refuses a second live booking whose held span overlaps the first; a cancelled or spam one holds nothing', async () => {
    const insert = (from: string, to: string, state: 'live' | 'cancelled' | 'spam' = 'live') =>
      env.db.query(
        `INSERT INTO consultation_bookings (id, starts_at, ends_at, held, name, email,
           manage_token_sha256, origin, cancelled_at, spam_reason)
         VALUES ($1::uuid, $2::timestamptz, $3::timestamptz, tstzrange($2::timestamptz, $4::timestamptz),
           'A', 'a@example.test', encode(sha256(convert_to($1::text, 'UTF8')), 'hex'), 'http://x',
           CASE WHEN $5 = 'cancelled' THEN now() END, CASE WHEN $5 = 'spam' THEN 'honeypot' END)`,
        [
          crypto.randomUUID(),
          from,
          new Date(Date.parse(from) + 15 * 60_000).toISOString(),
          to,
          state,
        ],
      );
    await insert('2027-03-02T17:00:00Z', '2027-03-02T17:30:00Z');
    await expect(insert('2027-03-02T17:15:00Z', '2027-03-02T17:45:00Z')).rejects.toMatchObject({
      code: '23P01',
    });
    // Touching is not overlapping: [17:00, 17:30) and [17:30, 18:00).
    await insert('2027-03-02T17:30:00Z', '2027-03-02T18:00:00Z');
    await insert('2027-03-02T17:00:00Z', '2027-03-02T17:30:00Z', 'cancelled');
    await insert('2027-03-02T17:15:00Z', '2027-03-02T17:45:00Z', 'spam');
    // Once cancelled, a booking's time can be booked again.
    await env.db.query(
      `UPDATE consultation_bookings SET cancelled_at = now() WHERE starts_at = '2027-03-02T17:30:00Z'`,
    );
    await insert('2027-03-02T17:30:00Z', '2027-03-02T18:00:00Z');
    expect(
      await env.count('consultation_bookings WHERE cancelled_at IS NULL AND spam_reason IS NULL'),
    ).toBe(2);
  });
});
