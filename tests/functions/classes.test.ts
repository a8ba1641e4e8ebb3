/**
 * The small group classes on a real PostgreSQL server and a real SMTP server, with the studio's
 * clock set by the test (never a sleep): the timetable with the places left, a place booked with
 * its invite, a tampered price or class refused with nothing stored, the last place raced by 50
 * requests from several function instances (each its own pool), the waitlist's offer taken and
 * lapsing to the next person, no offer after the cutoff, a class below its minimum cancelled at
 * its cutoff, and the links' GET changing nothing.
 *
 * Content: a copy of content/ with one more class of its own numbers (Sunrise Mat: 3 places,
 * minimum 2... see below), so the defaults and a class's own values are both used.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import bookClass from '../../functions/book-class';
import classWaitlist from '../../functions/class-waitlist';
import classesSteps from '../../functions/classes-steps';
import retryMail from '../../functions/retry-mail';
import submitWaiver from '../../functions/submit-waiver';
import { addClassDate, cancelClassDate, classesForFeed } from '../../src/server/classes/desk';
import { cancelPlace } from '../../src/server/classes/engine';
import { loadPlace, loadWaitEntry, placeToken } from '../../src/server/classes/store';
import { outbox } from '../../src/server/mail-kinds';
import { eraseParticipant, previewErasure } from '../../src/server/records/erasure';
import { advanceClock, setClock } from '../../src/server/platform/clock';
import { transaction } from '../../src/server/platform/db';
import { useFunctionEnv } from '../fixtures/function-env';
import { renderPage } from '../fixtures/on-demand';
import { startInstances, type Answer, type Call, type Instance } from '../fixtures/instances';
import type { ReceivedMail } from '../fixtures/smtp';
import { PERSON_SPAM_CHECKS, waiverBody } from '../fixtures/submissions';
import { OTHER_REQUEST } from '../../src/shared/form-answer';
import { formPost, jsonPost, refusalPage } from './harness';

// A place's page and a waitlist offer's, rendered on demand as the site gives them.
const classManage = (request: Request) => renderPage(request);
const classClaim = (request: Request) => renderPage(request);

const env = useFunctionEnv();
const ROOT = resolve(import.meta.dirname, '../..');
const SITE = 'http://127.0.0.1:8888';
const STUDIO = 'studio-inbox@example.test';
// content/classes.yaml's own: a place is cancelled, never moved.
const POLICY =
  'You can cancel your place free of charge up to 24 hours before the class starts, with the link in your confirmation. Later than that, the full price is due.';
let content: string;

// Monday 1 March 2027, 03:59 in Portland (11:59 UTC; the clock runs on from there).
const NOW = new Date('2027-03-01T11:59:00Z');
// Mat Foundations, Tuesday 2 March 18:00 PST: 4 places (the default), minimum 2, $45
// (small-group.md's price); its cutoff 12 hours before, 06:00 PST (14:00 UTC).
const MAT = { class: 'mat-foundations-tu-1800', start: '2027-03-03T02:00:00.000Z' };
const MAT_CUTOFF = new Date('2027-03-02T14:00:00Z');
// Sunrise Mat, Wednesday 3 March 07:00 PST: 3 places, minimum 3, $30 (its own numbers).
const SUNRISE = { class: 'sunrise-mat-we-0700', start: '2027-03-03T15:00:00.000Z' };
const SUNRISE_CUTOFF = new Date('2027-03-03T03:00:00Z');

beforeAll(async () => {
  content = await mkdtemp(join(tmpdir(), 'classes-'));
  await cp(resolve(ROOT, 'content'), content, { recursive: true });
  await appendFile(
    join(content, 'classes.yaml'),
    [
      '  - name: Sunrise Mat',
      '    days: [We]',
      "    time: '07:00'",
      '    lengthMinutes: 45',
      '    capacity: 3',
      '    minimum: 3',
      '    price: 30',
      '',
    ].join('\n'),
  );
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
  process.env.CONTACT_TO = STUDIO;
  process.env.SITE_URL = SITE;
});
afterAll(async () => {
  delete process.env.PAGES_DIR;
  delete process.env.CONTACT_TO;
  delete process.env.SITE_URL;
  await rm(content, { recursive: true, force: true });
});
beforeEach(() => {
  vi.stubEnv('CONTENT_DIR', content);
  setClock(NOW);
});
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
});

interface Person {
  name: string;
  email: string;
}
const person = (first: string): Person => ({
  name: `${first} Tester`,
  email: `${first.toLowerCase()}@example.test`,
});

let ip = 0;
/** A JSON post from the page's script, each from a client of its own (the rate limit aside). */
function book(which: typeof MAT, who: Person, extra: Record<string, unknown> = {}) {
  return bookClass(
    jsonPost(
      `${SITE}/api/classes/book`,
      { ...which, ...who, ...PERSON_SPAM_CHECKS, ...extra },
      { 'x-nf-client-connection-ip': `198.51.100.${(ip++ % 250) + 1}` },
    ),
  );
}

function join_(which: typeof MAT, who: Person) {
  return classWaitlist(
    jsonPost(
      `${SITE}/api/classes/waitlist`,
      { ...which, ...who, ...PERSON_SPAM_CHECKS },
      { 'x-nf-client-connection-ip': `203.0.113.${(ip++ % 250) + 1}` },
    ),
  );
}

async function timetable(): Promise<string> {
  const answer = await renderPage(new Request(`${SITE}/classes`));
  expect(answer.status).toBe(200);
  return answer.text();
}

/** The places left the page shows for a class. */
async function placesLeft(which: typeof MAT): Promise<number> {
  const html = await timetable();
  const item = new RegExp(
    `data-class="${which.class}" data-start="${which.start}"[^>]*>[\\s\\S]*?data-places-left="(\\d+)"`,
  ).exec(html);
  expect(item, `${which.class} is not on the page`).not.toBeNull();
  return Number(item![1]);
}

const mailsTo = (to: string) => env.smtp.mails.filter((mail) => mail.envelope.to.includes(to));

function calendarOf(mail: ReceivedMail) {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar');
  expect(part, `no text/calendar part in "${mail.subject}"`).toBeDefined();
  const text = part!.content.toString('utf8');
  const parsed = ical.sync.parseICS(text);
  const event = Object.values(parsed).find((c): c is VEvent => c?.type === 'VEVENT')!;
  return { method: /^METHOD:(\w+)/m.exec(text)?.[1], event, text };
}

const placeIdOf = async (email: string) =>
  (
    await env.db.query<{ id: string }>(
      `SELECT id FROM class_places WHERE email = $1 ORDER BY created_at DESC LIMIT 1`,
      [email],
    )
  ).rows[0]!.id;

const manageTokenOf = async (email: string) =>
  placeToken((await loadPlace(await placeIdOf(email)))!);

async function fill(which: typeof MAT, names: string[]) {
  for (const name of names) expect((await book(which, person(name))).status).toBe(200);
}

describe('the timetable and booking a place', () => {
  test("without the studio's Stripe keys a place is paid at the studio, and the timetable says so", async () => {
    const html = await timetable();
    expect(html).toContain('$45 per person, due at the studio');
    // A sentence of its own, after the time zone's.
    expect(html).toContain('time zone (Portland, Oregon). Payment is at the studio.');
  });

  test('books a place at the price in content: the confirmation with its invite, the amount due, the manage and waiver links; the places left fall', async () => {
    expect(await placesLeft(MAT)).toBe(4);
    const answer = await book(MAT, person('Grace'), { price: 45 });
    expect(answer.status).toBe(200);
    const body = await answer.json();
    expect(body.success).toBe(true);
    expect(body.booking.manage).toMatch(/^\/classes\/manage\?token=[\w-]{43}$/);

    const [row] = (
      await env.db.query<{
        place_no: number;
        status: string;
        payment: string;
        price_cents: number;
      }>(
        `SELECT s.place_no, s.status, s.payment, d.price_cents
           FROM class_places s JOIN class_dates d ON d.id = s.class_date_id`,
      )
    ).rows;
    expect(row).toEqual({ place_no: 1, status: 'booked', payment: 'due', price_cents: 4500 });
    expect(await placesLeft(MAT)).toBe(3);

    await env.smtp.waitForMails(3);
    const [mail] = mailsTo('grace@example.test');
    expect(mail!.subject).toBe('Your place in Mat Foundations on Tuesday, March 2 at 6:00 PM PST');
    expect(mail!.text).toContain('Hello Grace,');
    expect(mail!.text).toContain('Due at the studio: $45');
    expect(mail!.text).toContain(`${SITE}/classes/manage?token=`);
    // No waiver is on file for Grace: the link, and that it must be signed before the class.
    expect(mail!.text).toContain('The liability waiver must be signed before the class');
    expect(mail!.text).toContain(`${SITE}/waiver`);
    const invite = calendarOf(mail!);
    expect(invite.method).toBe('REQUEST');
    expect(invite.event.uid).toBe(`class-place-${await placeIdOf('grace@example.test')}@127.0.0.1`);
    expect(Number(invite.event.sequence)).toBe(0);
    expect(new Date(invite.event.start).toISOString()).toBe(MAT.start);
    expect(new Date(invite.event.end!).toISOString()).toBe('2027-03-03T02:55:00.000Z');
    expect(String(invite.event.description)).toContain('Due at the studio: $45');
    // A reminder an hour before, read back by node-ical.
    expect((invite.event as VEvent & { alarms?: { trigger: string }[] }).alarms).toEqual([
      expect.objectContaining({ action: 'DISPLAY', trigger: '-PT1H' }),
    ]);
    // The studio's cancellation policy: before booking, in the mail and in the invite.
    const policy = POLICY;
    expect(await timetable()).toContain(policy);
    expect(mail!.text).toContain(policy);
    expect(String(invite.event.description).replace(/\s+/g, ' ')).toContain(policy);

    // The studio: a notice of the place, and the class itself for her calendar (no participant).
    const studio = mailsTo(STUDIO);
    expect(studio.map((m) => m.subject).sort()).toEqual([
      'Class booked: Mat Foundations, Tuesday, March 2 at 6:00 PM PST',
      'Class place booked: Grace Tester, Mat Foundations Tuesday, March 2 at 6:00 PM PST',
    ]);
    const own = calendarOf(studio.find((m) => m.subject!.startsWith('Class booked'))!);
    expect(own.method).toBe('REQUEST');
    expect(own.text).not.toMatch(/ATTENDEE/);
  });

  test('the page says where, what each class is, why a class cannot be booked, and that a waiver is signed first', async () => {
    const item = (html: string, which: typeof MAT) =>
      new RegExp(
        `data-class="${which.class}" data-start="${which.start}"[^>]*>([\\s\\S]*?)</li>`,
      ).exec(html)![1]!;
    let html = await timetable();
    expect(html).toContain(
      'Every class is at the studio, 2140 SE Division St, Portland, OR 97202.',
    );
    expect(item(html, MAT)).toContain('The essentials of pilates on the mat');
    expect(item(html, MAT)).toContain(
      'New to the studio? Please sign the liability waiver before your first class',
    );
    expect(item(html, MAT)).not.toContain('data-why');
    // Past its cutoff with nobody booked: closed, and the page says why.
    setClock(new Date(MAT_CUTOFF.getTime() + 60_000));
    html = await timetable();
    expect(item(html, MAT)).toContain('Booking closed');
    expect(item(html, MAT)).toContain(
      'Booking closes 12 hours before it starts unless 2 people have booked by then.',
    );
  });

  test('a person a waiver covers gets no waiver link', async () => {
    const signed = await submitWaiver(
      jsonPost(`${SITE}/api/submit-waiver`, waiverBody({ email: 'ada@example.test' })),
    );
    expect(signed.status).toBe(200);
    expect((await book(MAT, person('Ada'))).status).toBe(200);
    await env.smtp.waitForMails(2 + 3);
    const [mail] = mailsTo('ada@example.test').filter((m) => m.subject!.startsWith('Your place'));
    expect(mail!.text).not.toContain('waiver');
  });

  test('a class of its own numbers: its price and places, not the defaults', async () => {
    expect(await placesLeft(SUNRISE)).toBe(3);
    expect((await book(SUNRISE, person('Ada'), { price: 45 })).status).toBe(422);
    expect((await book(SUNRISE, person('Ada'), { price: '30' })).status).toBe(200);
    expect(await placesLeft(SUNRISE)).toBe(2);
  });

  test('a tampered price or class is refused (422): nothing stored, nothing sent', async () => {
    for (const extra of [
      { price: 1 },
      { price: 44.99 },
      { class: 'mat-foundations-tu-1900' },
      { start: '2027-03-03T03:00:00Z' },
    ]) {
      const answer = await book(MAT, person('Mallory'), extra);
      expect(answer.status, JSON.stringify(extra)).toBe(422);
      const body = await answer.json();
      expect(body.success).toBe(false);
    }
    const priced = await book(MAT, person('Mallory'), { price: 1 });
    expect((await priced.json()).error).toBe(
      'The price of this class has changed since the page was loaded, so nothing was booked. Please reload the page and book again.',
    );
    expect(await env.count('class_dates')).toBe(0);
    expect(await env.count('class_places')).toBe(0);
    expect(await env.count('mail_outbox')).toBe(0);
    expect(env.smtp.mails).toHaveLength(0);
  });

  test('without script: a form post books and lands on the place (303); a refusal is a page', async () => {
    const answer = await bookClass(
      formPost(`${SITE}/api/classes/book`, {
        ...MAT,
        price: '45',
        name: 'Nora Plain',
        email: 'nora@example.test',
        website: '',
      }),
    );
    expect(answer.status).toBe(303);
    const location = answer.headers.get('location')!;
    expect(location).toMatch(/^\/classes\/manage\?token=[\w-]{43}&done=booked$/);
    const page = await classManage(new Request(`${SITE}${location}`));
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('Your place is booked!');

    const refused = await bookClass(
      formPost(`${SITE}/api/classes/book`, {
        ...MAT,
        price: '5',
        name: 'N',
        email: 'n@example.test',
      }),
    );
    const refusal = await refusalPage(refused);
    expect(refusal.status).toBe(422);
    expect(refusal.headers.get('content-type')).toContain('text/html');
    expect(refusal.headers.get('cache-control')).toBe('no-store');
    expect(await refusal.text()).toContain('href="/classes"');
  });

  test('one place per person in a class: the same mailbox again is refused', async () => {
    expect((await book(MAT, person('Grace'))).status).toBe(200);
    const again = await book(MAT, { name: 'Grace T', email: 'GRACE+mat@example.test' });
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe(
      'This e-mail address already has a place in this class.',
    );
    expect(await placesLeft(MAT)).toBe(3);
  });
});

describe('a form sent again', () => {
  test('without script: told it was sent, never handed the place’s link, and nothing more stored or sent', async () => {
    const fields = Object.fromEntries(
      Object.entries({ ...MAT, ...person('Grace'), ...PERSON_SPAM_CHECKS }).map(([k, v]) => [
        k,
        String(v),
      ]),
    );
    const first = await bookClass(formPost(`${SITE}/api/classes/book`, fields));
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(
      /^\/classes\/manage\?token=[\w-]{43}&done=booked$/,
    );
    const queued = await env.count('mail_outbox');
    const again = await bookClass(formPost(`${SITE}/api/classes/book`, fields));
    expect(again.status).toBe(303);
    const to = again.headers.get('location')!;
    expect(to).toBe('/classes/manage?repeat=1');
    const page = await classManage(new Request(`${SITE}${to}`));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('This form was already sent');
    expect(html).toContain(
      'If it booked a place, that place stands, and the confirmation e-mail has the link to cancel it.',
    );
    expect(html).not.toMatch(/token=/);
    expect(await env.count('class_places')).toBe(1);
    expect(await env.count('mail_outbox')).toBe(queued);
  });

  test('with the same details: the same place, nothing more stored or sent; with other details: refused (409), nothing stored', async () => {
    const submissionId = randomUUID();
    const first = await book(MAT, person('Grace'), { submissionId });
    expect(first.status).toBe(200);
    const { booking } = (await first.json()) as { booking: { manage: string } };
    const again = await book(MAT, person('Grace'), { submissionId });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { booking: { manage: string } }).booking.manage).toBe(
      booking.manage,
    );
    const other = await book(MAT, person('Henry'), { submissionId });
    expect(other.status).toBe(409);
    expect((await other.json()).error).toBe(OTHER_REQUEST);
    expect(await env.count('class_places')).toBe(1);

    // The waitlist's form likewise.
    await fill(MAT, ['Ann', 'Ben', 'Cat']);
    const waiting = randomUUID();
    const wait = (who: Person) =>
      classWaitlist(
        jsonPost(`${SITE}/api/classes/waitlist`, {
          ...MAT,
          ...who,
          ...PERSON_SPAM_CHECKS,
          submissionId: waiting,
        }),
      );
    expect((await wait(person('Eve'))).status).toBe(200);
    expect((await wait(person('Eve'))).status).toBe(200);
    expect((await wait(person('Fay'))).status).toBe(409);
    expect(await env.count('class_waitlist')).toBe(1);
  });
});

describe('the manage link', () => {
  test('its GET changes nothing; its POST cancels (METHOD:CANCEL, SEQUENCE raised) once', async () => {
    await fill(MAT, ['Grace']);
    await env.smtp.waitForMails(3);
    const token = await manageTokenOf('grace@example.test');
    const outboxBefore = await env.count('mail_outbox');
    for (let i = 0; i < 3; i++) {
      const page = await classManage(new Request(`${SITE}/classes/manage?token=${token}`));
      expect(page.status).toBe(200);
      expect(page.headers.get('x-robots-tag')).toContain('noindex');
    }
    expect((await loadPlace(await placeIdOf('grace@example.test')))!.status).toBe('booked');
    expect(await env.count('mail_outbox')).toBe(outboxBefore);

    for (let i = 0; i < 2; i++) {
      const answer = await classManage(formPost(`${SITE}/classes/manage`, { token }));
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('Your place is cancelled');
    }
    expect(await placesLeft(MAT)).toBe(4);
    // One cancellation and one notice to the studio, however many POSTs.
    expect(await env.count('mail_outbox')).toBe(outboxBefore + 2);
    await env.smtp.waitForMails(5);
    const cancel = mailsTo('grace@example.test').find((m) => m.subject!.startsWith('Cancelled'))!;
    const invite = calendarOf(cancel);
    expect(invite.method).toBe('CANCEL');
    expect(Number(invite.event.sequence)).toBe(1);
    expect(invite.event.uid).toBe(`class-place-${await placeIdOf('grace@example.test')}@127.0.0.1`);
  });

  test('the reminder a day before repeats the amount due, the policy and the links; a cancelled place gets none', async () => {
    await fill(MAT, ['Grace', 'Ada']);
    await env.smtp.waitForMails(5);
    const [due] = (
      await env.db.query<{ next_attempt_at: Date }>(
        `SELECT next_attempt_at FROM mail_outbox WHERE kind = 'class-reminder' ORDER BY id LIMIT 1`,
      )
    ).rows;
    expect(new Date(due!.next_attempt_at).toISOString()).toBe('2027-03-02T02:00:00.000Z');
    const ada = await manageTokenOf('ada@example.test');
    expect((await classManage(formPost(`${SITE}/classes/manage`, { token: ada }))).status).toBe(
      200,
    );
    await env.smtp.waitForMails(7);
    env.smtp.mails.length = 0;
    setClock(new Date('2027-03-02T02:01:00Z'));
    expect((await retryMail()).status).toBe(200);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails.map((m) => [m.envelope.to.join(), m.subject])).toEqual([
      ['grace@example.test', 'Reminder: Mat Foundations on Tuesday, March 2 at 6:00 PM PST'],
    ]);
    const [reminder] = env.smtp.mails;
    expect(reminder!.text).toContain('Due at the studio: $45');
    expect(reminder!.text).toContain(POLICY);
    expect(reminder!.text).toContain('The liability waiver must be signed before the class');
    expect(reminder!.text).toContain(`${SITE}/classes/manage?token=`);
  });

  test('a POST with no Origin, or from another site, cancels nothing (403), as on every personal page', async () => {
    await fill(MAT, ['Grace']);
    const token = await manageTokenOf('grace@example.test');
    const bare = new Request(`${SITE}/classes/manage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    const elsewhere = formPost(
      `${SITE}/classes/manage`,
      { token },
      { origin: 'https://evil.example' },
    );
    for (const request of [bare, elsewhere]) {
      const answer = await classManage(request);
      expect(answer.status).toBe(403);
      expect(await answer.text()).toContain("This can only be sent from the studio's own pages");
    }
    expect((await loadPlace(await placeIdOf('grace@example.test')))!.status).toBe('booked');
    // A browser that sends no Origin but says the page is the site's own is let through.
    const sameSite = new Request(`${SITE}/classes/manage`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ token }).toString(),
    });
    expect((await classManage(sameSite)).status).toBe(200);
    expect((await loadPlace(await placeIdOf('grace@example.test')))!.status).toBe('cancelled');
  });

  test('after the cutoff the place cannot be cancelled from the link (409), and nothing changes', async () => {
    await fill(MAT, ['Grace', 'Ada']);
    const token = await manageTokenOf('grace@example.test');
    setClock(new Date(MAT_CUTOFF.getTime() + 60_000));
    const answer = await classManage(formPost(`${SITE}/classes/manage`, { token }));
    expect(answer.status).toBe(409);
    expect(await answer.text()).toContain(
      'Your place cannot be cancelled from this page any more.',
    );
    expect((await loadPlace(await placeIdOf('grace@example.test')))!.status).toBe('booked');
  });

  test('a link that opens nothing is a 404 page saying so, personal and never cached', async () => {
    const unknown = 'x'.repeat(43);
    for (const [path, words] of [
      ['/classes/manage', 'This link does not open a place'],
      ['/classes/claim', 'This link does not open an offer'],
    ]) {
      const page = await renderPage(new Request(`${SITE}${path}?token=${unknown}`));
      expect(page.status).toBe(404);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('x-robots-tag')).toContain('noindex');
      expect(await page.text()).toContain(words);
    }
    const put = await renderPage(new Request(`${SITE}/classes/manage`, { method: 'PUT' }));
    expect(put.status).toBe(405);
  });
});

describe("a participant's erasure", () => {
  test('takes their places and waitlist entries with their mails; a freed place is then offered to whoever waits', async () => {
    await fill(MAT, ['Ann', 'Ben', 'Cat', 'Dan']);
    expect((await join_(SUNRISE, person('Ann'))).status).toBe(409);
    expect((await join_(MAT, person('Eve'))).status).toBe(200);
    expect((await book(SUNRISE, person('Eve'))).status).toBe(200);
    await env.smtp.waitForMails(4 * 2 + 1 + 2);
    const staff = {
      email: 'instructor@example.test',
      sessionId: 's',
      expiresAt: new Date(),
      fresh: true,
    };

    // Ann's place goes, with the record of her mails; nobody else's.
    const annPlace = await placeIdOf('ann@example.test');
    const mailsAbout = async (id: string) =>
      (await env.db.query(`SELECT 1 FROM mail_outbox WHERE split_part(ref, ':', 1) = $1`, [id]))
        .rows.length;
    const benPlace = await placeIdOf('ben@example.test');
    const benMails = await mailsAbout(benPlace);
    expect(await mailsAbout(annPlace)).toBeGreaterThan(0);
    const preview = await previewErasure('ANN@example.test');
    expect(preview.bookings).toEqual([{ id: annPlace, start: MAT.start, upcoming: true }]);
    expect(await eraseParticipant('ANN@example.test', staff)).toMatchObject({ bookings: 1 });
    expect(await loadPlace(annPlace)).toBeUndefined();
    expect(await mailsAbout(annPlace)).toBe(0);
    expect(await loadPlace(benPlace)).toBeDefined();
    expect(await mailsAbout(benPlace)).toBe(benMails);

    // Her place is free: the steps offer it to Eve, who waits.
    env.smtp.mails.length = 0;
    expect(await (await classesSteps()).json()).toMatchObject({ offered: 1 });
    await env.smtp.waitForMails(1);
    expect(mailsTo('eve@example.test')[0]!.subject).toMatch(/^A place is free in Mat Foundations/);

    // Eve's entry (now offered, with the place it holds) and her Sunrise place go together.
    expect(await eraseParticipant('eve@example.test', staff)).toMatchObject({ bookings: 3 });
    expect(await env.count('class_waitlist')).toBe(0);
    expect(await placesLeft(MAT)).toBe(1);
    expect(await placesLeft(SUNRISE)).toBe(3);
  });
});

describe('the waitlist', () => {
  test('a freed place is offered to the first person waiting, held for the hold time, then passes to the next', async () => {
    await fill(MAT, ['Ann', 'Ben', 'Cat', 'Dan']);
    expect(await placesLeft(MAT)).toBe(0);
    expect(await timetable()).toContain('Join the waitlist');
    expect((await book(MAT, person('Gus'))).status).toBe(409);
    expect((await join_(MAT, person('Eve'))).status).toBe(200);
    expect((await join_(MAT, person('Fay'))).status).toBe(200);
    expect((await join_(MAT, person('Eve'))).status).toBe(409);
    await env.smtp.waitForMails(4 * 2 + 1 + 2);
    env.smtp.mails.length = 0;

    // Ann cancels: the place is held for Eve, so the class stays full for everyone else.
    const ann = await manageTokenOf('ann@example.test');
    expect((await classManage(formPost(`${SITE}/classes/manage`, { token: ann }))).status).toBe(
      200,
    );
    expect(await placesLeft(MAT)).toBe(0);
    expect((await book(MAT, person('Gus'))).status).toBe(409);
    await env.smtp.waitForMails(3);
    const [offer] = mailsTo('eve@example.test');
    expect(offer!.subject).toBe(
      'A place is free in Mat Foundations on Tuesday, March 2 at 6:00 PM PST',
    );
    // Held for 3 hours from 03:59 PST.
    expect(offer!.text).toContain('Held for you until: Monday, March 1, 2027, 6:59 AM PST');
    const link = /http:\/\/127\.0\.0\.1:8888\/classes\/claim\?token=[\w-]{43}/.exec(
      offer!.text!,
    )![0];
    expect(mailsTo('fay@example.test')).toHaveLength(0);

    // Opening the link changes nothing.
    const shown = await classClaim(new Request(link));
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Claim my place');
    const eve = (
      await env.db.query<{ id: string; status: string }>(
        `SELECT id, status FROM class_waitlist WHERE email = 'eve@example.test'`,
      )
    ).rows[0]!;
    expect(eve.status).toBe('offered');

    // The hold runs out before Eve claims: the steps pass the place to Fay.
    advanceClock(3 * 3_600_000 + 60_000);
    const steps = await (await classesSteps()).json();
    expect(steps).toMatchObject({ success: true, lapsed: 1, offered: 1 });
    expect((await loadWaitEntry(eve.id))!.status).toBe('lapsed');
    const late = await classClaim(
      formPost(`${SITE}/classes/claim`, { token: new URL(link).searchParams.get('token')! }),
    );
    expect(late.status).toBe(409);
    expect(await late.text()).toContain('This offer has run out');

    await env.smtp.waitForMails(4);
    const [fayOffer] = mailsTo('fay@example.test');
    const fayToken = /claim\?token=([\w-]{43})/.exec(fayOffer!.text!)![1]!;
    // A claim with no Origin claims nothing (403).
    const bare = await classClaim(
      new Request(`${SITE}/classes/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: fayToken }).toString(),
      }),
    );
    expect(bare.status).toBe(403);
    expect(
      (
        await env.db.query<{ status: string }>(
          `SELECT status FROM class_waitlist WHERE email = 'fay@example.test'`,
        )
      ).rows[0]!.status,
    ).toBe('offered');
    const claimed = await classClaim(formPost(`${SITE}/classes/claim`, { token: fayToken }));
    expect(claimed.status).toBe(303);
    expect(claimed.headers.get('location')).toMatch(
      /^\/classes\/manage\?token=[\w-]{43}&done=claimed$/,
    );
    // A second POST changes nothing more.
    const again = await classClaim(formPost(`${SITE}/classes/claim`, { token: fayToken }));
    expect(again.status).toBe(303);
    const places = (
      await env.db.query<{ email: string; status: string }>(
        `SELECT email, status FROM class_places WHERE place_no IS NOT NULL ORDER BY email`,
      )
    ).rows;
    expect(places).toEqual(
      ['ben', 'cat', 'dan', 'fay'].map((n) => ({ email: `${n}@example.test`, status: 'booked' })),
    );
    await env.smtp.waitForMails(6);
    const confirmation = mailsTo('fay@example.test').find((m) =>
      m.subject!.startsWith('Your place'),
    )!;
    expect(calendarOf(confirmation).method).toBe('REQUEST');
  });

  test('joining names the class on its page and in its mail, with a way to leave the waitlist: GET changes nothing, POST leaves, once; no offer comes after', async () => {
    await fill(MAT, ['Ann', 'Ben', 'Cat', 'Dan']);
    await env.smtp.waitForMails(4 * 2 + 1);
    env.smtp.mails.length = 0;
    const joined = await join_(MAT, person('Eve'));
    expect(joined.status).toBe(200);
    const { waiting } = (await joined.json()) as { waiting: string };
    expect(waiting).toMatch(/^\/classes\/waiting\?token=[\w-]{43}$/);
    // A post without script lands on the same page.
    const plain = await classWaitlist(
      formPost(`${SITE}/api/classes/waitlist`, { ...MAT, ...person('Fay') }),
    );
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toMatch(/^\/classes\/waiting\?token=[\w-]{43}$/);

    const page = await renderPage(new Request(`${SITE}${waiting}`));
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toContain('no-store');
    const html = await page.text();
    expect(html).toContain('You are on the waitlist');
    expect(html).toContain('Mat Foundations');
    expect(html).toContain('Tuesday, March 2, 2027, 6:00 – 6:55 PM PST');
    expect(html).toContain('At the studio: 2140 SE Division St, Portland, OR 97202');
    expect(html).toContain('Leave the waitlist…');
    const [mail] = mailsTo('eve@example.test');
    expect(mail!.subject).toBe(
      'You are on the waitlist for Mat Foundations on Tuesday, March 2 at 6:00 PM PST',
    );
    const token = new URL(`${SITE}${waiting}`).searchParams.get('token')!;
    expect(mail!.text).toContain(`http://127.0.0.1:8888/classes/waiting?token=${token}`);
    const status = async () =>
      (
        await env.db.query<{ status: string }>(
          `SELECT status FROM class_waitlist WHERE email = 'eve@example.test'`,
        )
      ).rows[0]!.status;
    expect(await status()).toBe('waiting');

    const left = await renderPage(formPost(`${SITE}/classes/waiting`, { token }));
    expect(left.status).toBe(200);
    expect(await left.text()).toContain('You have left the waitlist');
    expect(await status()).toBe('left');
    const again = await renderPage(formPost(`${SITE}/classes/waiting`, { token }));
    expect(await again.text()).toContain('You left the waitlist of this class');
    expect(
      (await renderPage(formPost(`${SITE}/classes/waiting`, { token: 'x'.repeat(43) }))).status,
    ).toBe(404);

    // Ann cancels: the place goes to Fay, who still waits, never to Eve.
    const ann = await manageTokenOf('ann@example.test');
    await classManage(formPost(`${SITE}/classes/manage`, { token: ann }));
    await env.smtp.waitForMails(4);
    expect(mailsTo('fay@example.test').map((m) => m.subject)).toContain(
      'A place is free in Mat Foundations on Tuesday, March 2 at 6:00 PM PST',
    );
    expect(mailsTo('eve@example.test').map((m) => m.subject)).not.toContain(
      'A place is free in Mat Foundations on Tuesday, March 2 at 6:00 PM PST',
    );
  });

  test('an offer made before the cutoff still holds after it; the cutoff closes only those still waiting', async () => {
    await fill(MAT, ['Ann', 'Ben', 'Cat', 'Dan']);
    expect((await join_(MAT, person('Eve'))).status).toBe(200);
    expect((await join_(MAT, person('Fay'))).status).toBe(200);
    // An hour before the cutoff (too late for her own link), the desk cancels Ann's place.
    setClock(new Date(MAT_CUTOFF.getTime() - 3_600_000));
    const freed = await transaction(async (tx) =>
      cancelPlace(tx, await placeIdOf('ann@example.test'), 'maya@example.test', outbox),
    );
    await outbox.deliverNow(freed!);
    setClock(new Date(MAT_CUTOFF.getTime() + 60_000));
    expect(await (await classesSteps()).json()).toMatchObject({ cutOff: 1, lapsed: 0 });
    const status = async (email: string) =>
      (
        await env.db.query<{ status: string }>(
          'SELECT status FROM class_waitlist WHERE email = $1',
          [email],
        )
      ).rows[0]!.status;
    expect(await status('eve@example.test')).toBe('offered');
    expect(await status('fay@example.test')).toBe('closed');
    await env.smtp.waitForMails(4 * 2 + 1 + 2 + 2 + 1 + 1);
    const link = /claim\?token=([\w-]{43})/.exec(
      mailsTo('eve@example.test').find((m) => m.subject!.startsWith('A place is free'))!.text!,
    )![1]!;
    expect((await classClaim(formPost(`${SITE}/classes/claim`, { token: link }))).status).toBe(303);
    expect(await status('eve@example.test')).toBe('claimed');
  });

  test('a place held for an online checkout that ran out unpaid is given back and offered', async () => {
    await fill(MAT, ['Ann', 'Ben', 'Cat', 'Dan']);
    expect((await join_(MAT, person('Eve'))).status).toBe(200);
    // Issue 33's checkout: Dan's place held until a minute from now, never paid.
    await env.db.query(
      `UPDATE class_places SET payment = 'held', held_until = $1 WHERE email = 'dan@example.test'`,
      [new Date(NOW.getTime() + 60_000).toISOString()],
    );
    expect(await (await classesSteps()).json()).toMatchObject({ released: 0, offered: 0 });
    advanceClock(2 * 60_000);
    expect(await (await classesSteps()).json()).toMatchObject({ released: 1, offered: 1 });
    expect((await loadPlace(await placeIdOf('dan@example.test')))!.status).toBe('lapsed');
    await env.smtp.waitForMails(4 * 2 + 1 + 1 + 1);
    expect(mailsTo('eve@example.test').map((m) => m.subject)).toContain(
      'A place is free in Mat Foundations on Tuesday, March 2 at 6:00 PM PST',
    );
  });

  test('a class with places left has no waitlist (409)', async () => {
    expect((await join_(MAT, person('Eve'))).status).toBe(409);
    expect(await env.count('class_waitlist')).toBe(0);
  });

  test('no offer after the cutoff: the waitlist closes, those waiting told, a place freed then stays free', async () => {
    await fill(MAT, ['Ann', 'Ben', 'Cat', 'Dan']);
    expect((await join_(MAT, person('Eve'))).status).toBe(200);
    setClock(new Date(MAT_CUTOFF.getTime() + 60_000));
    // A place freed on the desk after the cutoff, before the steps have run: no offer.
    const freed = await transaction((tx) =>
      placeIdOf('ann@example.test').then((id) => cancelPlace(tx, id, 'maya@example.test', outbox)),
    );
    expect(freed).toHaveLength(2);
    await outbox.deliverNow(freed!);
    expect(
      (await env.db.query(`SELECT 1 FROM class_waitlist WHERE status = 'offered'`)).rows,
    ).toHaveLength(0);

    const steps = await (await classesSteps()).json();
    expect(steps).toMatchObject({ success: true, cutOff: 1, cancelled: 0, offered: 0 });
    await env.smtp.waitForMails(4 * 2 + 1 + 1 + 2 + 1);
    const eve = mailsTo('eve@example.test').map((m) => m.subject);
    expect(eve).toContain(
      'No place came free in Mat Foundations on Tuesday, March 2 at 6:00 PM PST',
    );
    expect(eve.some((s) => s!.startsWith('A place is free'))).toBe(false);
    // The class runs with three: a late booking may still take the free place, without a waitlist.
    expect((await book(MAT, person('Gus'))).status).toBe(200);
    expect((await join_(MAT, person('Hal'))).status).toBe(409);
  });
});

describe('the minimum', () => {
  test('a class below its minimum at its cutoff is cancelled: each person told in a mail naming only them, and her calendar', async () => {
    await fill(SUNRISE, ['Ann', 'Ben']);
    await fill(MAT, ['Cat', 'Dan']);
    await env.smtp.waitForMails(2 * 2 + 1 + 2 * 2 + 1);
    env.smtp.mails.length = 0;
    setClock(new Date(SUNRISE_CUTOFF.getTime() + 60_000));
    const steps = await (await classesSteps()).json();
    // Mat Foundations (its cutoff passed before, with its minimum of 2) runs; Sunrise Mat does not.
    expect(steps).toMatchObject({ success: true, cutOff: 2, cancelled: 1 });
    await env.smtp.waitForMails(3);
    for (const [name, other] of [
      ['ann', 'ben'],
      ['ben', 'ann'],
    ] as const) {
      const [mail] = mailsTo(`${name}@example.test`);
      expect(mail!.subject).toBe('Cancelled: Sunrise Mat on Wednesday, March 3 at 7:00 AM PST');
      expect(mail!.text).toContain(`Hello ${name[0]!.toUpperCase()}${name.slice(1)},`);
      expect(mail!.text).toContain('fewer than 3 people booked it');
      for (const part of [mail!.text!, String(mail!.html), calendarOf(mail!).text]) {
        expect(part).not.toContain(`${other}@example.test`);
        // The other's name nowhere; a link's random token may hold any letters, so not in it.
        const words = part.replace(/\r?\n[ \t]/g, '').replace(/token=[\w-]+/g, '');
        expect(words).not.toMatch(new RegExp(`\\b${other}\\b`, 'i'));
      }
      expect(mail!.envelope.to).toEqual([`${name}@example.test`]);
      const invite = calendarOf(mail!);
      expect(invite.method).toBe('CANCEL');
      expect(Number(invite.event.sequence)).toBe(1);
    }
    const [studio] = mailsTo(STUDIO);
    expect(studio!.subject).toBe('Class cancelled: Sunrise Mat, Wednesday, March 3 at 7:00 AM PST');
    // Her mail begins with a whole sentence, and gives the reason in her words.
    expect(studio!.text).toMatch(
      /^Sunrise Mat on Wednesday, March 3, 2027, 7:00 – 7:45 AM PST \(Pacific Time\) is cancelled\. Fewer than its minimum of 3 had booked when its booking closed, \d+ hours? before it starts\./m,
    );
    expect(calendarOf(studio!).method).toBe('CANCEL');
    expect(mailsTo('cat@example.test')).toHaveLength(0);
    expect(await timetable()).toMatch(/data-class="sunrise-mat-we-0700"[\s\S]*?Cancelled/);
    // Run again: nothing more.
    expect(await (await classesSteps()).json()).toMatchObject({
      cutOff: 0,
      cancelled: 0,
      mails: 0,
    });
  });
});

describe("the desk's functions", () => {
  test('a single date added is bookable; a timetable date cancelled before anyone booked is no longer', async () => {
    const added = await transaction((tx) =>
      addClassDate(
        tx,
        { title: 'Spring Special', start: new Date('2027-03-05T18:00:00Z'), lengthMinutes: 60 },
        'maya@example.test',
      ),
    );
    const special = { class: added.key, start: '2027-03-05T18:00:00.000Z' };
    expect(await placesLeft(special)).toBe(4);
    expect((await book(special, person('Ann'), { price: 45 })).status).toBe(200);
    expect(await placesLeft(special)).toBe(3);

    const thursday = { class: 'mat-foundations-th-1800', start: '2027-03-05T02:00:00.000Z' };
    const none = await transaction((tx) =>
      cancelClassDate(tx, thursday.class, new Date(thursday.start), 'maya@example.test', outbox),
    );
    expect(none).toHaveLength(1);
    await outbox.deliverNow(none!);
    expect(await timetable()).toMatch(
      /data-class="mat-foundations-th-1800" data-start="2027-03-05T02:00:00.000Z"[^>]*>[\s\S]*?Cancelled/,
    );
    expect((await book(thursday, person('Ben'))).status).toBe(409);
    // Her calendar never had it: no cancellation is sent for it.
    expect(mailsTo(STUDIO).filter((m) => m.subject!.startsWith('Class cancelled'))).toHaveLength(0);
  });

  // Marking a place paid at the studio or a no-show is the desk's (bookings-desk.test.ts, through
  // the place's own kind); what the studio's feed shows of a class with places is here.
  test("the studio's feed counts a class's places and names nobody", async () => {
    await fill(MAT, ['Ann', 'Ben']);
    const [dateId] = (await env.db.query<{ id: string }>('SELECT id FROM class_dates')).rows;
    const [feed] = await classesForFeed(NOW, '127.0.0.1');
    expect(feed).toMatchObject({
      uid: `class-${dateId!.id}@127.0.0.1`,
      summary: 'Mat Foundations (2 of 4)',
    });
    expect(JSON.stringify(feed)).not.toContain('Tester');
  });
});

describe('the last place, raced', () => {
  let running: Instance[] = [];
  afterEach(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
    running = [];
  });

  // Five Node processes start from source first: on a busy machine that alone can take half a
  // minute, so the test's own timeout is set here (vi.setConfig inside it would not apply to it).
  test(
    '50 requests at once from five function instances, each its own pool, give one place',
    {
      timeout: 120_000,
    },
    async () => {
      // The instances keep the real time: the class is next week's, on the real clock.
      setClock(undefined);
      const next = (await (await renderPage(new Request(`${SITE}/classes`))).text()).match(
        /data-class="(mat-foundations-t[uh]-1800)" data-start="([^"]+)"/g,
      )!;
      const [, key, start] = /data-class="([^"]+)" data-start="([^"]+)"/.exec(next[2]!)!;
      const which = { class: key!, start: start! };
      await fill(which, ['Ann', 'Ben', 'Cat']);

      running = await startInstances(5, {
        module: resolve(ROOT, 'functions', 'book-class.ts'),
        source: true,
        cwd: ROOT,
        env: {
          NETLIFY_DB_URL: env.url,
          NETLIFY_DB_DRIVER: 'server',
          SMTP_URL: env.smtp.url,
          CONTACT_TO: STUDIO,
          CONTENT_DIR: content,
          SITE_URL: SITE,
          WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        },
      });
      const url = `${SITE}/api/classes/book`;
      const call = (i: number, n: number): Call => ({
        url,
        headers: { origin: SITE, 'content-type': 'application/json' },
        body: JSON.stringify({
          ...which,
          price: 45,
          name: `Racer ${i}-${n}`,
          email: `racer-${i}-${n}@example.test`,
          ...PERSON_SPAM_CHECKS,
        }),
        ip: `192.0.2.${10 * i + n + 1}`,
      });
      const answers: Answer[] = (
        await Promise.all(
          running.map((instance, i) =>
            instance.run(Array.from({ length: 10 }, (_, n) => call(i, n))),
          ),
        )
      ).flat();
      expect(answers.find((a) => a.error)?.error).toBeUndefined();
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, ...Array(49).fill(409)]);
      for (const refused of answers.filter((a) => a.status === 409)) {
        expect(JSON.parse(refused.body).error).toBe(
          'This class has just filled up, so nothing was booked. You can join its waitlist instead.',
        );
      }
      const live = (
        await env.db.query<{ n: number; numbers: number[] }>(
          `SELECT count(*)::int AS n, array_agg(place_no ORDER BY place_no) AS numbers
           FROM class_places WHERE place_no IS NOT NULL`,
        )
      ).rows[0]!;
      expect(live).toEqual({ n: 4, numbers: [1, 2, 3, 4] });
    },
  );
});
