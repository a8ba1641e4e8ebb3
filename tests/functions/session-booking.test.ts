/**
 * Booking a private or in-home session, on a real PostgreSQL server and a real SMTP server, with
 * the studio's clock set by the test (never a sleep): the booking with its invite, the amount due
 * and the policy; a price or a type the browser made up (422, nothing stored, nothing sent); a
 * session and a consultation never overlapping, in either order, refused by Postgres itself; an
 * in-home session's areas and travel time; the manage link (its page changes nothing; a POST
 * cancels within the policy, refused outside it, also across the days clocks change); and fifty
 * requests for one slot from five instances giving one booking.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import bookConsultation from '../../functions/book-consultation';
import bookSession from '../../functions/book-session';
import retryMail from '../../functions/retry-mail';
import { sessionType } from '../../src/server/booking/policy';
import { eraseParticipant } from '../../src/server/records/erasure';
import { rotateBookingLinks } from '../../src/server/booking/key-rotation';
import { sessionManageData } from '../../src/server/booking/session-manage';
import { sessionSlots } from '../../src/server/booking/session-offer';
import { loadSession, sessionToken } from '../../src/server/booking/session-store';
import { setClock } from '../../src/server/platform/clock';
import { useFunctionEnv } from '../fixtures/function-env';
import { renderPage } from '../fixtures/on-demand';
import { startInstances, type Instance } from '../fixtures/instances';
import type { ReceivedMail } from '../fixtures/smtp';
import { bookingBody, sessionBody } from '../fixtures/submissions';
import { signWaiver } from './desk';
import { formPost, jsonPost } from './harness';

const env = useFunctionEnv();
const ROOT = resolve(import.meta.dirname, '../..');
const SITE = 'http://127.0.0.1:8888';
const STUDIO = 'studio-inbox@example.test';
const POLICY =
  'You can cancel or move your session free of charge up to 24 hours before it starts, with the link in your confirmation. Later than that, the full price is due.';

// Monday 1 March 2027, 03:59 in Portland (11:59 UTC). Sessions need 24 hours' notice; Tuesday's
// session hours run 07:00-12:00 PST (15:00-20:00 UTC), the consultation's 09:00-11:30.
const NOW = new Date('2027-03-01T11:59:00Z');
const TUESDAY_8 = '2027-03-02T16:00:00Z';
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const TUESDAY_930 = '2027-03-02T17:30:00Z';
const TUESDAY_10 = '2027-03-02T18:00:00Z';

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
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
});

const book = (type: string, slot: string, overrides: Record<string, unknown> = {}) =>
  bookSession(jsonPost(`${SITE}/api/book-session`, sessionBody(type, slot, overrides)));

const bookConsult = (slot: string) =>
  bookConsultation(jsonPost(`${SITE}/api/consultation/book`, bookingBody(slot)));

/** A POST of the manage page's own forms, as a browser sends it. */
const manage = (fields: Record<string, string>) =>
  renderPage(formPost(`${SITE}/book/manage`, fields));

/** The manage page, as the link in a mail opens it. */
const managePage = (query: string) => renderPage(new Request(`${SITE}/book/manage?${query}`));

const mailTo = (to: string) => env.smtp.mails.filter((mail) => mail.envelope.to.includes(to));

/** The mail's text/calendar part read back with node-ical: its METHOD and its event. */
function calendarOf(mail: ReceivedMail) {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar');
  expect(part, `no text/calendar part in "${mail.subject}"`).toBeDefined();
  const text = part!.content.toString('utf8');
  const parsed = ical.sync.parseICS(text);
  const event = Object.values(parsed).find((c): c is VEvent => c?.type === 'VEVENT')!;
  const method = /^METHOD:(\w+)/m.exec(text)?.[1];
  return { method, event, text };
}

async function onlySession() {
  const { rows } = await env.db.query<{
    id: string;
    amount_cents: number;
    payment: string;
    held: string;
    sequence: number;
    place: string;
    street: string | null;
    postal_code: string | null;
  }>(
    `SELECT id, amount_cents, payment, held::text, sequence, place, street, postal_code
       FROM session_bookings`,
  );
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

describe('the booking page', () => {
  const page = (type: string) => renderPage(new Request(`${SITE}/book/${type}`));
  const offered = (html: string) =>
    [...html.matchAll(/name="slot" value="([^"]+)"/g)].map((match) => match[1]);

  test('shows the session, where, what is due and the policy before booking, and its free times as a plain form', async () => {
    const answer = await page('private');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('netlify-cdn-cache-control')).toMatch(/s-maxage=45/);
    const html = await answer.text();
    expect(html).toContain('Book your 60-minute private session');
    expect(html).toContain('At the studio: 2140 SE Division St, Portland, OR 97202');
    expect(html).toContain('$120, paid at the studio');
    expect(html).toContain(POLICY);
    expect(html).toContain('action="/api/book-session"');
    expect(html).toContain('name="sessionType" value="private"');
    const slots = offered(html);
    // 24 hours' notice from Monday 03:59: Tuesday from 7:00 PST, every 30 minutes.
    expect(slots[0]).toBe('2027-03-02T15:00:00Z');
    expect(slots).toContain(TUESDAY_9);

    expect((await book('private', TUESDAY_9)).status).toBe(200);
    expect(offered(await (await page('private')).text())).not.toContain(TUESDAY_9);
  });

  test('an in-home session asks for the address and names the ZIP codes served', async () => {
    const html = await (await page('in-home')).text();
    expect(html).toContain('name="street"');
    expect(html).toContain('name="postalCode"');
    expect(html).toContain('In-home sessions are offered in the ZIP codes 97202, 97206');
  });

  test('an in-home session asks where first, before a time, and holds the ZIP code to her areas, said beside the field', async () => {
    const html = await (await page('in-home')).text();
    // Where comes before the times, so an address outside her areas is said before one is chosen.
    expect(html.indexOf('name="postalCode"')).toBeLessThan(html.indexOf('name="slot"'));
    expect(html.indexOf('name="street"')).toBeLessThan(html.indexOf('name="slot"'));
    // Without script the browser itself refuses another ZIP code, in her words.
    const zip = /<input[^>]*name="postalCode"[^>]*>/.exec(html)![0];
    expect(zip).toContain(
      'pattern="\\s*(97202|97206|97214|97215|97232|97212|97211|97217|97227)(-\\d{4})?\\s*"',
    );
    expect(zip).toContain('title="In-home sessions are offered in the ZIP codes 97202, 97206');
    expect(zip).toContain('aria-describedby="session-postalCode-hint"');
    // With script, the same words beside the field as it is typed, and every problem beside its field.
    expect(html).toContain(
      'data-outside="In-home sessions are offered in the ZIP codes 97202, 97206, 97214, 97215, 97232, 97212, 97211, 97217, 97227. For another area, please write to the studio."',
    );
    expect(html).toMatch(/id="session-postalCode-error"[^>]*data-error-for="postalCode"/);
    expect(html).toContain('data-error-for="slot"');
    expect(html).toContain("document.querySelector('form[data-session-form]')");
  });

  test('says before booking, to everyone, that a waiver is signed before the first session', async () => {
    for (const type of ['private', 'in-home']) {
      const html = await (await page(type)).text();
      expect(html).toContain(
        'New to the studio? Please sign the liability waiver before your first session: it takes about 5 minutes, and once is enough.',
      );
      expect(html).toMatch(/data-waiver-note[\s\S]*?href="\/waiver"/);
    }
  });

  test('a session content does not book by time is not found', async () => {
    expect((await page('small-group')).status).toBe(404);
    expect((await page('vip')).status).toBe(404);
  });
});

describe('booking a private session', () => {
  test('stores it with the price from content, mails a 60-minute REQUEST invite with the amount due, the policy, the manage link and the waiver link', async () => {
    const answer = await book('private', TUESDAY_9, { price: '120' });
    expect(answer.status).toBe(200);
    const body = await answer.json();
    expect(body).toMatchObject({
      success: true,
      booking: {
        title: 'Private Session',
        start: '2027-03-02T17:00:00.000Z',
        end: '2027-03-02T18:00:00.000Z',
        day: 'Tuesday, March 2, 2027',
        time: '9:00 – 10:00 AM PST',
        place: 'At the studio: 2140 SE Division St, Portland, OR 97202',
        due: 'Amount due: $120, paid at the studio',
        policy: POLICY,
      },
    });
    const row = await onlySession();
    expect(row).toMatchObject({
      amount_cents: 12000,
      payment: 'due',
      sequence: 0,
      place: 'studio',
    });
    // The session and the 15-minute buffer after it.
    expect(row.held).toBe('["2027-03-02 17:00:00+00","2027-03-02 18:15:00+00")');
    const token = sessionToken((await loadSession(row.id))!);
    expect(body.booking.manage).toBe(`/book/manage?token=${token}`);
    // The token is stored hashed and sealed, never as it is.
    const { rows: raw } = await env.db.query<{ row: string }>(
      `SELECT row_to_json(s)::text AS row FROM session_bookings s`,
    );
    expect(raw[0]!.row).not.toContain(token);

    await env.smtp.waitForMails(2);
    const [visitor] = mailTo('grace@example.test');
    const [studio] = mailTo(STUDIO);
    expect(visitor!.subject).toBe('Your session on Tuesday, March 2 at 9:00 AM PST');
    expect(visitor!.text).toContain('Hello Grace,');
    expect(visitor!.text).toContain('Your private session with Maya Lindqvist is booked.');
    expect(visitor!.text).toContain('When: Tuesday, March 2, 2027, 9:00 – 10:00 AM PST');
    expect(visitor!.text).toContain('Amount due: $120, paid at the studio');
    expect(visitor!.text).toContain(`Cancellation policy: ${POLICY}`);
    expect(visitor!.text).toContain(`${SITE}/book/manage?token=${token}`);
    // No waiver on file for this address: the link, and that it must be signed before.
    expect(visitor!.text).toContain(
      'A signed liability waiver must be on file before your session.',
    );
    expect(visitor!.text).toContain(`${SITE}/waiver`);
    expect(visitor!.text).not.toContain('Hopper');
    expect(studio!.subject).toBe(
      'Private Session booked: Grace Hopper, Tuesday, March 2 at 9:00 AM PST',
    );
    expect(studio!.text).toContain('No waiver on file covers them yet');

    for (const mail of [visitor!, studio!]) {
      const { method, event } = calendarOf(mail);
      expect(method).toBe('REQUEST');
      expect(event.uid).toBe(`session-${row.id}@127.0.0.1`);
      expect(Number(event.sequence)).toBe(0);
      expect(event.start.toISOString()).toBe('2027-03-02T17:00:00.000Z');
      expect(event.end?.toISOString()).toBe('2027-03-02T18:00:00.000Z');
      expect(String(event.location)).toBe('2140 SE Division St, Portland, OR 97202');
    }
    const description = String(calendarOf(visitor!).event.description);
    expect(description).toContain('Amount due: $120, paid at the studio');
    expect(description).toContain(POLICY);
    expect(description).toContain(`${SITE}/book/manage?token=${token}`);

    // The time is gone from the free times; the reminder waits for a day before.
    const free = (await sessionSlots(sessionType('private')!)).flatMap((day) => day.slots);
    expect(free.map((slot) => slot.start)).not.toContain(TUESDAY_9);
    const { rows: reminder } = await env.db.query<{ not_before: Date }>(
      `SELECT next_attempt_at AS not_before FROM mail_outbox WHERE kind = 'session-reminder'`,
    );
    expect(reminder.map((r) => new Date(r.not_before).toISOString())).toEqual([
      '2027-03-01T17:00:00.000Z',
    ]);
  });

  test('sent without a time, the field error beside the times names the session', async () => {
    const answer = await book('private', '');
    expect(answer.status).toBe(422);
    expect((await answer.json()).fieldErrors.slot).toBe('Please choose a time for your session.');
  });

  test('a form post without script is answered with a 303 to its page', async () => {
    const fields = Object.fromEntries(
      Object.entries(sessionBody('private', TUESDAY_9)).map(([k, v]) => [k, String(v)]),
    );
    const answer = await bookSession(formPost(`${SITE}/api/book-session`, fields));
    expect(answer.status).toBe(303);
    const location = answer.headers.get('location')!;
    expect(location).toMatch(/^\/book\/manage\?token=[\w-]+&booked=1$/);
    expect(await env.count('session_bookings')).toBe(1);
    const confirmation = await renderPage(new Request(`${SITE}${location}`));
    expect(await confirmation.text()).toContain('Your session is booked!');
  });
});

describe('what her mail says of the spam checks', () => {
  const posted = (fields: Record<string, unknown>) =>
    bookSession(
      formPost(
        `${SITE}/api/book-session`,
        Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])),
      ),
    );

  test('the page stamps the time into its plain form, so a post from an ordinary phone is timed and her mail says nothing of it', async () => {
    const html = await (await renderPage(new Request(`${SITE}/book/private`))).text();
    expect(html).toMatch(/<input type="hidden" name="fillTimeMs"/);
    expect(html).toContain("namedItem('fillTimeMs')");
    expect((await posted({ ...sessionBody('private', TUESDAY_9), fillTimeMs: 9000 })).status).toBe(
      303,
    );
    await env.smtp.waitForMails(2);
    const [studio] = mailTo(STUDIO);
    expect(studio!.text).not.toMatch(/JavaScript|scripts|spam/i);
  });

  test('a post whose browser ran no script says so in her words, and what she can do', async () => {
    const { fillTimeMs: _untimed, ...fields } = sessionBody('private', TUESDAY_9);
    expect((await posted(fields)).status).toBe(303);
    await env.smtp.waitForMails(2);
    const [studio] = mailTo(STUDIO);
    expect(studio!.text).not.toMatch(/JavaScript|hidden spam field|rate limits/);
    expect(studio!.text).toContain(
      'Their browser ran no scripts, so this booking had one spam check fewer than usual. If you do not know them and it looks wrong, cancel it on the desk.',
    );
  });
});

describe('what the visitor is told of the waiver, and forgetting them', () => {
  test('a waiver on file covers them: no waiver link, and the studio is told so', async () => {
    await signWaiver({ email: 'Grace@Example.test' });
    env.smtp.mails.length = 0;
    expect((await book('private', TUESDAY_9)).status).toBe(200);
    await env.smtp.waitForMails(2);
    const [visitor] = mailTo('grace@example.test');
    const [studio] = mailTo(STUDIO);
    expect(visitor!.text).not.toContain('liability waiver');
    expect(visitor!.text).not.toContain('/waiver');
    expect(studio!.text).toContain('A waiver on file covers them.');
  });

  test('an erasure of the address takes the session, its held time and its mails', async () => {
    expect((await book('private', TUESDAY_9)).status).toBe(200);
    await env.smtp.waitForMails(2);
    const staff = {
      sessionId: 'x',
      email: 'maya@example.test',
      expiresAt: new Date(),
      fresh: true,
    };
    const erased = await eraseParticipant('GRACE@example.test', staff);
    expect(erased.bookings).toBe(1);
    expect(await env.count('session_bookings')).toBe(0);
    expect(await env.count('held_time')).toBe(0);
    expect(await env.count('mail_outbox')).toBe(0);
  });
});

describe('a change of the site key', () => {
  test('npm run rotate-key re-seals a session’s manage token, which then opens with the new key alone', async () => {
    const OLD = randomBytes(32).toString('base64');
    const NEW = randomBytes(32).toString('base64');
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', OLD);
    expect((await book('private', TUESDAY_9)).status).toBe(200);
    const { id } = await onlySession();
    const token = sessionToken((await loadSession(id))!);

    vi.stubEnv('WAIVER_ENCRYPTION_KEY', NEW);
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', OLD);
    const summary = await rotateBookingLinks();
    expect(summary).toMatchObject({ bookings: 1, unreadable: [], remaining: 0 });
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', '');
    expect(sessionToken((await loadSession(id))!)).toBe(token);
  });
});

describe('the reminder', () => {
  test('a day before, on the clock the test sets, it repeats the amount due, the policy and the waiver', async () => {
    expect((await book('private', TUESDAY_9)).status).toBe(200);
    await env.smtp.waitForMails(2);
    env.smtp.mails.length = 0;
    expect(await (await retryMail()).json()).toMatchObject({ sent: 0 });
    setClock(new Date('2027-03-01T17:00:30Z'));
    expect(await (await retryMail()).json()).toMatchObject({ sent: 1 });
    const [reminder] = mailTo('grace@example.test');
    expect(reminder!.subject).toBe('Reminder: your session on Tuesday, March 2 at 9:00 AM PST');
    expect(reminder!.text).toContain('Amount due: $120, paid at the studio');
    expect(reminder!.text).toContain(`Cancellation policy: ${POLICY}`);
    expect(reminder!.text).toContain(
      'A signed liability waiver must be on file before your session.',
    );
  });
});

describe('a price or a session the browser made up', () => {
  test.each([
    ['a lower price', { price: '1' }, 'price'],
    ['a price of nothing', { price: '0' }, 'price'],
    ['a price that is not a number', { price: 'free' }, 'price'],
    ['the class, which is not booked by time', { sessionType: 'small-group' }, 'sessionType'],
    ['a type content does not have', { sessionType: 'vip' }, 'sessionType'],
  ])('%s: 422, nothing stored, nothing sent', async (_, overrides, field) => {
    const answer = await book('private', TUESDAY_9, overrides);
    expect(answer.status).toBe(422);
    const body = await answer.json();
    expect(body.success).toBe(false);
    expect(Object.keys(body.fieldErrors)).toEqual([field]);
    expect(await env.count('session_bookings')).toBe(0);
    expect(await env.count('held_time')).toBe(0);
    expect(await env.count('mail_outbox')).toBe(0);
    expect(env.smtp.mails).toHaveLength(0);
  });
});

/** A booking written straight into its table, past every check of the code: only Postgres stands. */
async function rawConsultation(start: string, end: string) {
  await env.db.query(
    `INSERT INTO consultation_bookings (id, starts_at, ends_at, held, name, email,
       manage_token_sha256, origin)
     VALUES (gen_random_uuid(), $1, $2, tstzrange($1, $2), 'Raw', 'raw@example.test',
       md5(random()::text) || md5(random()::text), 'http://x')`,
    [start, end],
  );
}

async function rawSession(start: string, end: string) {
  await env.db.query(
    `INSERT INTO session_bookings (id, session_type, session_title, place, starts_at, ends_at,
       held, name, email, amount_cents, manage_token_sha256, manage_token_sealed, origin)
     VALUES (gen_random_uuid(), 'private', 'Private Sessions', 'studio', $1, $2,
       tstzrange($1, $2), 'Raw', 'raw@example.test', 12000,
       md5(random()::text) || md5(random()::text), 'enc2:x', 'http://x')`,
    [start, end],
  );
}

const refusedByPostgres = (work: Promise<unknown>) =>
  expect(work).rejects.toMatchObject({ code: '23P01', constraint: 'held_time_no_overlap' });

describe('a form sent again without script', () => {
  test('is told it was sent, never handed the session’s link, and nothing more is stored or sent', async () => {
    const fields = Object.fromEntries(
      Object.entries(sessionBody('private', TUESDAY_9)).map(([k, v]) => [k, String(v)]),
    );
    const first = await bookSession(formPost(`${SITE}/api/book-session`, fields));
    expect(first.status).toBe(303);
    const queued = await env.count('mail_outbox');
    const again = await bookSession(formPost(`${SITE}/api/book-session`, fields));
    expect(again.headers.get('location')).toBe('/book/manage?repeat=1');
    const page = await managePage('repeat=1');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('This form was already sent');
    expect(html).toContain('If it booked a session, that booking stands');
    expect(html).not.toMatch(/token=/);
    expect(await env.count('session_bookings')).toBe(1);
    expect(await env.count('mail_outbox')).toBe(queued);
  });
});

describe('a session and a consultation never overlap', () => {
  test('a session first: the consultation inside it is refused, by the page and by Postgres', async () => {
    expect((await book('private', TUESDAY_9)).status).toBe(200);
    const answer = await bookConsult(TUESDAY_930);
    expect(answer.status).toBe(409);
    await refusedByPostgres(rawConsultation('2027-03-02T17:30:00Z', '2027-03-02T17:45:00Z'));
    // Its buffer too: 10:00-10:15 PST is held.
    await refusedByPostgres(rawConsultation('2027-03-02T18:05:00Z', '2027-03-02T18:20:00Z'));
    await rawConsultation('2027-03-02T18:15:00Z', '2027-03-02T18:30:00Z');
  });

  test('a consultation first: the session over it is refused, by the page and by Postgres', async () => {
    expect((await bookConsult(TUESDAY_9)).status).toBe(200);
    // 8:00-9:00 and its buffer to 9:15 would run into the consultation at 9:00.
    expect((await book('private', TUESDAY_8)).status).toBe(409);
    expect((await book('private', TUESDAY_9)).status).toBe(409);
    await refusedByPostgres(rawSession('2027-03-02T16:30:00Z', '2027-03-02T17:05:00Z'));
    expect(await env.count('session_bookings')).toBe(0);
  });

  test('a cancelled booking holds nothing, and a move takes its hold along', async () => {
    expect((await book('private', TUESDAY_9)).status).toBe(200);
    await env.db.query(`UPDATE session_bookings SET cancelled_at = now()`);
    expect(await env.count('held_time')).toBe(0);
    expect((await bookConsult(TUESDAY_930)).status).toBe(200);
    await refusedByPostgres(
      env.db.query(`UPDATE session_bookings SET cancelled_at = NULL`) as Promise<unknown>,
    );
  });
});

describe('an in-home session', () => {
  test('takes only the ZIP codes she serves, and the street', async () => {
    const outside = await book('in-home', TUESDAY_10, { postalCode: '97201' });
    expect(outside.status).toBe(422);
    expect((await outside.json()).fieldErrors.postalCode).toMatch(
      /^In-home sessions are offered in the ZIP codes 97202, /,
    );
    const noStreet = await book('in-home', TUESDAY_10, { street: '' });
    expect(noStreet.status).toBe(422);
    expect(await env.count('session_bookings')).toBe(0);
  });

  test('keeps her travel time free before and after, and is due at the session', async () => {
    // A consultation 9:00-9:15 holds her to 9:30; with 30 minutes to travel, 10:00 is the first.
    expect((await bookConsult(TUESDAY_9)).status).toBe(200);
    const free = (await sessionSlots(sessionType('in-home')!)).flatMap((day) => day.slots);
    const tuesday = free
      .map((slot) => slot.start)
      .filter((start) => start.startsWith('2027-03-02'));
    expect(tuesday).not.toContain(TUESDAY_930);
    expect(tuesday).toContain(TUESDAY_10);
    // 7:00 would hold to 8:00 + 15 + 30 = 8:45; 7:30 to 9:15, over the consultation.
    expect(tuesday).toContain('2027-03-02T15:00:00Z');
    expect(tuesday).not.toContain('2027-03-02T15:30:00Z');

    const answer = await book('in-home', TUESDAY_10, { postalCode: ' 97214 ' });
    expect(answer.status).toBe(200);
    expect((await answer.json()).booking.due).toBe('Amount due: $150, paid at your session');
    const row = await onlySession();
    expect(row).toMatchObject({ amount_cents: 15000, place: 'home', postal_code: '97214' });
    expect(row.held).toBe('["2027-03-02 17:30:00+00","2027-03-02 19:45:00+00")');
  });

  test('its invite, read back by node-ical, is at their address with its city, and rings an hour before', async () => {
    expect((await book('in-home', TUESDAY_10, { postalCode: '97214' })).status).toBe(200);
    await env.smtp.waitForMails(2);
    const [mail] = mailTo('grace@example.test');
    expect(mail!.text).toContain('At your address: 3520 SE Woodstock Blvd, Portland, OR 97214');
    const { event, text } = calendarOf(mail!);
    expect(event.location).toBe('3520 SE Woodstock Blvd, Portland, OR 97214');
    expect(event.summary).toBe('In-Home Session with Maya Lindqvist');
    const alarms = (event as VEvent & { alarms?: { action: string; trigger: string }[] }).alarms;
    expect(alarms).toEqual([expect.objectContaining({ action: 'DISPLAY', trigger: '-PT1H' })]);
    expect(text).toMatch(
      /BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT1H\r\nDESCRIPTION:.+\r\nEND:VALARM/,
    );
  });
});

describe('the manage link', () => {
  async function booked(slot = TUESDAY_9) {
    expect((await book('private', slot)).status).toBe(200);
    const row = await onlySession();
    await env.smtp.waitForMails(2);
    return { id: row.id, token: sessionToken((await loadSession(row.id))!) };
  }

  test('its page changes nothing', async () => {
    const { id, token } = await booked();
    const outbox = await env.count('mail_outbox');
    const data = await sessionManageData(token);
    expect(data).toMatchObject({ found: true, cancelled: false, changeable: true, policy: POLICY });
    expect(await sessionManageData(token)).toEqual(data);
    expect((await loadSession(id))!.sequence).toBe(0);
    expect(await env.count('mail_outbox')).toBe(outbox);
    // The page itself, opened twice as a mail scanner would: it shows the session, changes nothing.
    for (const query of [`token=${token}`, `token=${token}&booked=1`]) {
      const page = await managePage(query);
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toMatch(/no-store/);
      expect(page.headers.get('x-robots-tag')).toMatch(/noindex/);
      const html = await page.text();
      expect(html).toContain('Tuesday, March 2, 2027');
      expect(html).toContain('Cancel my session');
    }
    expect((await loadSession(id))!.sequence).toBe(0);
    expect((await loadSession(id))!.cancelledAt).toBeNull();
    expect(await env.count('mail_outbox')).toBe(outbox);
    expect((await managePage('token=not-a-token')).status).toBe(404);
  });

  test('a POST within the policy cancels, with METHOD:CANCEL and a higher SEQUENCE; again changes nothing', async () => {
    const { id, token } = await booked();
    env.smtp.mails.length = 0;
    const answer = await manage({ token, action: 'cancel' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(`/book/manage?token=${token}&done=cancelled`);
    expect((await loadSession(id))!.sequence).toBe(1);
    expect(await env.count('held_time')).toBe(0);
    await env.smtp.waitForMails(2);
    for (const mail of env.smtp.mails) {
      const { method, event } = calendarOf(mail);
      expect(method).toBe('CANCEL');
      expect(event.uid).toBe(`session-${id}@127.0.0.1`);
      expect(Number(event.sequence)).toBe(1);
    }
    const outbox = await env.count('mail_outbox');
    expect((await manage({ token, action: 'cancel' })).status).toBe(303);
    expect(await env.count('mail_outbox')).toBe(outbox);
    expect((await loadSession(id))!.sequence).toBe(1);
  });

  test('a move within the policy raises the SEQUENCE and sends the new time with the same UID', async () => {
    const { id, token } = await booked();
    env.smtp.mails.length = 0;
    const answer = await manage({ token, action: 'move', slot: TUESDAY_10 });
    expect(answer.status).toBe(303);
    await env.smtp.waitForMails(2);
    const { method, event } = calendarOf(mailTo('grace@example.test')[0]!);
    expect(method).toBe('REQUEST');
    expect(event.uid).toBe(`session-${id}@127.0.0.1`);
    expect(Number(event.sequence)).toBe(1);
    expect(event.start.toISOString()).toBe('2027-03-02T18:00:00.000Z');
  });

  test('later than the policy allows, a POST is refused with its words and changes nothing', async () => {
    const { id, token } = await booked();
    env.smtp.mails.length = 0;
    // 23 hours 59 minutes before 9:00 PST on Tuesday.
    setClock(new Date('2027-03-01T17:01:00Z'));
    expect(await sessionManageData(token)).toMatchObject({ changeable: false });
    const answer = await manage({ token, action: 'cancel' });
    expect(answer.status).toBe(409);
    const page = await answer.text();
    expect(page).toContain(
      'This session starts in less than 24 hours, so it can no longer be cancelled or moved here.',
    );
    expect(page).not.toContain('Cancel my session');
    expect((await loadSession(id))!).toMatchObject({ sequence: 0, cancelledAt: null });
    expect(await env.count('held_time')).toBe(1);
  });
});

describe('the policy across the days clocks change', () => {
  let content: string;
  beforeAll(async () => {
    content = await mkdtemp(join(tmpdir(), 'session-policy-'));
    await cp(join(ROOT, 'content'), content, { recursive: true });
    const file = join(content, 'booking.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text
        .replace('cancelOrMoveHoursBefore: 24', 'cancelOrMoveHoursBefore: 48')
        .replace('up to 24 hours before', 'up to 48 hours before'),
    );
  });
  afterAll(() => rm(content, { recursive: true, force: true }));

  test.each([
    // Monday 15 March 2027, 7:00 PDT; the clocks went forward on Sunday. 48 real hours before
    // is 6:00 PST on Saturday, not 7:00 as the wall clock would count.
    [
      'March',
      '2027-03-10T12:00:00Z',
      '2027-03-15T14:00:00Z',
      '2027-03-13T13:59:30Z',
      '2027-03-13T14:00:01Z',
    ],
    // Monday 8 November 2027, 7:00 PST; the clocks went back on Sunday. 48 real hours before is
    // 8:00 PDT on Saturday, not 7:00.
    [
      'November',
      '2027-11-03T12:00:00Z',
      '2027-11-08T15:00:00Z',
      '2027-11-06T14:59:30Z',
      '2027-11-06T15:00:01Z',
    ],
  ])(
    '%s: cancelled half a minute before the limit of the policy, refused a second after it',
    async (_, bookedAt, start, last, late) => {
      vi.stubEnv('CONTENT_DIR', content);
      setClock(new Date(bookedAt));
      expect((await book('private', start)).status).toBe(200);
      const { id } = await onlySession();
      const token = sessionToken((await loadSession(id))!);

      setClock(new Date(late));
      expect((await manage({ token, action: 'cancel' })).status).toBe(409);
      expect((await loadSession(id))!.cancelledAt).toBeNull();
      setClock(new Date(last));
      const answer = await manage({ token, action: 'cancel' });
      expect(answer.status, await answer.clone().text()).toBe(303);
      expect((await loadSession(id))!.cancelledAt).not.toBeNull();
    },
  );
});

describe('one private slot, booked from many instances at once', () => {
  let running: Instance[] = [];
  afterEach(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
    running = [];
  });

  test(
    'fifty requests through five instances: exactly one booking, and forty-nine answers that the time is gone',
    { timeout: 120_000 },
    async () => {
      // A time offered right now (the instances run on the real clock).
      setClock(undefined);
      const slot = (await sessionSlots(sessionType('private')!)).flatMap((day) => day.slots)[3]!
        .start;
      running = await startInstances(5, {
        module: resolve(ROOT, 'functions', 'book-session.ts'),
        source: true,
        cwd: ROOT,
        env: {
          NETLIFY_DB_URL: env.url,
          NETLIFY_DB_DRIVER: 'server',
          SMTP_URL: env.smtp.url,
          CONTACT_TO: STUDIO,
          WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        },
      });
      const url = `${SITE}/api/book-session`;
      const answers = (
        await Promise.all(
          running.map((instance, i) =>
            instance.run(
              Array.from({ length: 10 }, (_, n) => ({
                url,
                headers: { origin: SITE, 'content-type': 'application/json' },
                body: JSON.stringify(
                  sessionBody('private', slot, {
                    name: `Visitor ${i}-${n}`,
                    email: `visitor-${i}-${n}@example.test`,
                  }),
                ),
                ip: `198.51.100.${10 * i + n + 1}`,
              })),
            ),
          ),
        )
      ).flat();
      expect(answers.find((answer) => answer.error)?.error).toBeUndefined();
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(49).fill(409)]);
      for (const refused of answers.filter((answer) => answer.status === 409)) {
        expect(JSON.parse(refused.body).error).toBe(
          'That time has just been taken. Please choose another one.',
        );
      }
      const { rows } = await env.db.query<{ starts_at: Date }>(
        `SELECT starts_at FROM session_bookings WHERE cancelled_at IS NULL`,
      );
      expect(rows.map((row) => new Date(row.starts_at).toISOString())).toEqual([
        new Date(slot).toISOString(),
      ]);
      expect(await env.count('held_time')).toBe(1);
      await env.smtp.waitForMails(2);
      expect(env.smtp.mails).toHaveLength(2);
    },
  );
});
