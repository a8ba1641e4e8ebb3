/**
 * The records desk's Consultations screen through its function, as the desk's island calls it:
 * the lists, cancelling with a note, blocking time, the feed's secret address and the feed
 * itself, and a participant's erasure reaching their bookings. Real PostgreSQL, real SMTP.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import bookClass from '../../functions/book-class';
import bookConsultation from '../../functions/book-consultation';
import bookSession from '../../functions/book-session';
import consultationFeed from '../../functions/consultation-feed';
import { renderPage } from '../fixtures/on-demand';
import { setClock } from '../../src/server/platform/clock';
import type { BookingsPage, ConsultationsCalendar, LogRow } from '../../src/shared/desk-api';
import { useFunctionEnv } from '../fixtures/function-env';
import { bookingBody, PERSON_SPAM_CHECKS, sessionBody } from '../fixtures/submissions';
import { desk, ORIGIN, signIn, signWaiver, STAFF } from './desk';
import { jsonPost } from './harness';

const env = useFunctionEnv();
const STUDIO = 'studio-inbox@example.test';
const NOW = new Date('2027-03-01T11:59:00Z');
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const WEDNESDAY_9 = '2027-03-03T17:00:00Z';
const TUESDAY_10 = '2027-03-02T18:00:00Z';

beforeAll(() => {
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
});
afterAll(() => {
  delete process.env.PAGES_DIR;
});
beforeEach(() => {
  setClock(NOW);
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('CONTACT_TO', STUDIO);
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_RATE_LIMIT', '1000/1m');
  vi.stubEnv('BOOKING_RATE_LIMIT', '1000/1m');
  vi.stubEnv('CONSULTATION_EMAIL_LIMIT', '1000/1m');
});
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
});

async function book(slot: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const answer = await bookConsultation(
    jsonPost(`${ORIGIN}/api/consultation/book`, bookingBody(slot, overrides)),
  );
  expect(answer.status).toBe(200);
  const { rows } = await env.db.query<{ id: string }>(
    `SELECT id FROM consultation_bookings WHERE starts_at = $1`,
    [slot],
  );
  return rows[0].id;
}

/** A booking from `ip` (no check of its answer). */
const bookFrom = (ip: string, slot: string, overrides: Record<string, unknown> = {}) =>
  bookConsultation(jsonPost(`${ORIGIN}/api/consultation/book`, bookingBody(slot, overrides)), {
    ip,
  } as never);

async function json<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  expect(answer.status).toBe(200);
  return (await answer.json()) as T;
}

async function slots(): Promise<string[]> {
  const answer = await renderPage(new Request(`${ORIGIN}/consultation`));
  return [...(await answer.text()).matchAll(/name="slot" value="([^"]+)"/g)].map((m) => m[1]);
}

async function lastLog(cookie: string): Promise<LogRow> {
  const log = await json<{ items: LogRow[] }>(desk('/api/records/log', { cookie }));
  return log.items[0];
}

describe('one network holding many', () => {
  test('the upcoming list names the bookings one network holds once it holds three, and nothing of the network', async () => {
    const cookie = await signIn(env.smtp);
    const times = ['2027-03-02T17:00:00Z', '2027-03-02T18:00:00Z', '2027-03-02T19:00:00Z'];
    for (const [i, slot] of times.slice(0, 2).entries()) {
      const answer = await bookFrom(`198.51.100.${i + 1}`, slot, {
        name: `Guest ${i}`,
        email: `guest${i}@catchall.test`,
      });
      expect(answer.status).toBe(200);
    }
    expect((await bookFrom('203.0.113.5', '2027-03-03T17:00:00Z', { name: 'Zoe' })).status).toBe(
      200,
    );
    let page = await json<BookingsPage>(desk('/api/records/consultations', { cookie }));
    expect(page.crowded).toEqual([]);

    expect(
      (await bookFrom('198.51.100.77', times[2]!, { name: 'Guest 2', email: 'g2@catchall.test' }))
        .status,
    ).toBe(200);
    page = await json<BookingsPage>(desk('/api/records/consultations', { cookie }));
    expect(page.crowded).toHaveLength(1);
    expect(page.crowded![0]!.bookings.map((b) => b.name)).toEqual([
      'Guest 0',
      'Guest 1',
      'Guest 2',
    ]);
    expect(JSON.stringify(page)).not.toContain('198.51');
    const past = await json<BookingsPage>(desk('/api/records/consultations?when=past', { cookie }));
    expect(past.crowded).toBeUndefined();
  });
});

describe('the lists', () => {
  test('upcoming soonest first and past latest first, each saying whether that address has a waiver on file', async () => {
    await signWaiver({ email: 'Grace@Example.test' });
    const tuesday = await book(TUESDAY_9);
    const wednesday = await book(WEDNESDAY_9, { email: 'alan@example.test', name: 'Alan Turing' });
    const cookie = await signIn(env.smtp);

    const upcoming = await json<BookingsPage>(desk('/api/records/consultations', { cookie }));
    expect(upcoming.timeZone).toBe('America/Los_Angeles');
    // A waiver (not spam) on file for that address, in any case.
    const onFile = (row: BookingsPage['items'][number]) => row.waiverStatus !== 'none';
    expect(upcoming.items.map((row) => [row.id, row.name, onFile(row)])).toEqual([
      [tuesday, 'Grace Hopper', true],
      [wednesday, 'Alan Turing', false],
    ]);
    expect(upcoming.items[0]).toMatchObject({
      start: '2027-03-02T17:00:00.000Z',
      email: 'grace@example.test',
      phone: '+1 503 555 0123',
      topic: 'My lower back after long days at the desk.',
      cancelledAt: null,
    });

    // The reminders queued for the day before are not mail the desk reports undelivered.
    const delivery = await json<{ undelivered: unknown; items: unknown[] }>(
      desk('/api/records/delivery', { cookie }),
    );
    expect(delivery).toMatchObject({ undelivered: { owed: 0, failed: 0 }, items: [] });

    setClock(new Date('2027-03-04T12:00:00Z'));
    const later = await signIn(env.smtp); // the first session has ended by then
    const past = await json<BookingsPage>(
      desk('/api/records/consultations?when=past', { cookie: later }),
    );
    expect(past.items.map((row) => row.id)).toEqual([wednesday, tuesday]);
    const none = await json<BookingsPage>(desk('/api/records/consultations', { cookie: later }));
    expect(none.items).toEqual([]);
  });
});

describe('cancelling on the desk', () => {
  test('cancels with a note: the visitor and the studio get the CANCEL, the note reaches the visitor, and the log says so', async () => {
    const id = await book(TUESDAY_9);
    const cookie = await signIn(env.smtp);
    const before = env.smtp.mails.length;
    const answer = await desk(`/api/records/consultations/${id}/cancel`, {
      cookie,
      body: { note: 'I am unwell that day: could we find another time?' },
    });
    expect(answer.status).toBe(200);
    await env.smtp.waitForMails(before + 2);
    const [visitor] = env.smtp.mails
      .slice(before)
      .filter((m) => m.envelope.to[0] === 'grace@example.test');
    expect(visitor.text).toContain('Maya Lindqvist has had to cancel your consultation');
    expect(visitor.text).toContain('I am unwell that day: could we find another time?');
    const part = visitor.attachments.find((a) => a.contentType === 'text/calendar')!;
    expect(part.headers.get('content-type')).toMatchObject({ params: { method: 'CANCEL' } });
    const event = Object.values(ical.sync.parseICS(part.content.toString())).find(
      (c): c is VEvent => c?.type === 'VEVENT',
    )!;
    expect(event.uid).toBe(`booking-${id}@127.0.0.1`);
    expect(Number(event.sequence)).toBe(1);
    expect(
      env.smtp.mails
        .slice(before)
        .map((m) => m.envelope.to[0])
        .sort(),
    ).toEqual(['grace@example.test', STUDIO]);

    expect(await lastLog(cookie)).toMatchObject({
      actor: STAFF,
      action: 'cancel-booking',
      recordKind: 'booking',
      recordId: id,
      detail: { note: true },
    });
    const again = await desk(`/api/records/consultations/${id}/cancel`, { cookie, body: {} });
    expect(again.status).toBe(409);
    expect(await env.count("mail_outbox WHERE kind LIKE 'booking-cancel%'")).toBe(2);
    expect(await slots()).toContain(TUESDAY_9);
  });
});

describe('hours changed under a booking', () => {
  /** Her weekly hours without Tuesdays, in a copy of content/, as if she had edited them. */
  function dropTuesdays() {
    const dir = mkdtempSync(join(tmpdir(), 'consultation-hours-'));
    cpSync(resolve(import.meta.dirname, '../../content'), dir, { recursive: true });
    const file = join(dir, 'consultation.yaml');
    const hours = readFileSync(file, 'utf8');
    expect(hours).toContain('[Mo, Tu, We, Th, Fr]');
    writeFileSync(file, hours.replaceAll('[Mo, Tu, We, Th, Fr]', '[Mo, We, Th, Fr]'));
    vi.stubEnv('CONTENT_DIR', dir);
  }

  test('the desk marks a booking her hours no longer include, and cancelling it does not mail that the time is free', async () => {
    const tuesday = await book(TUESDAY_9);
    const wednesday = await book(WEDNESDAY_9, { email: 'alan@example.test', name: 'Alan Turing' });
    const cookie = await signIn(env.smtp);
    dropTuesdays();

    const upcoming = await json<BookingsPage>(desk('/api/records/consultations', { cookie }));
    expect(upcoming.items.map((row) => [row.id, row.outsideHours])).toEqual([
      [tuesday, true],
      [wednesday, false],
    ]);
    const calendar = await json<ConsultationsCalendar>(
      desk('/api/records/consultations/calendar', { cookie }),
    );
    expect(calendar.outsideHours).toBe(1);
    expect(await slots()).not.toContain(TUESDAY_9);

    const cancelled = async (id: string) => {
      const before = env.smtp.mails.length;
      const answer = await desk(`/api/records/consultations/${id}/cancel`, { cookie, body: {} });
      expect(answer.status).toBe(200);
      await env.smtp.waitForMails(before + 2);
      return env.smtp.mails.slice(before).find((m) => m.envelope.to[0] === STUDIO)!.text;
    };
    const notOffered = await cancelled(tuesday);
    expect(notOffered).not.toContain('free to book');
    expect(notOffered).toContain(
      'The time is outside your weekly hours now, so it is not offered to visitors.',
    );
    const offered = await cancelled(wednesday);
    expect(offered).toContain('The time is free to book again.');
    expect(await slots()).toContain(WEDNESDAY_9);

    // Nothing is left outside her hours once it is cancelled.
    expect(
      (await json<ConsultationsCalendar>(desk('/api/records/consultations/calendar', { cookie })))
        .outsideHours,
    ).toBe(0);
  });

  test('a cancelled time the page does not offer (blocked) is not called free', async () => {
    const tuesday = await book(TUESDAY_9);
    const cookie = await signIn(env.smtp);
    const blocked = await desk('/api/records/consultations/blocks', {
      cookie,
      body: { from: '2027-03-02', to: '2027-03-02', note: 'Day off' },
    });
    expect(blocked.status).toBe(200);
    const before = env.smtp.mails.length;
    await desk(`/api/records/consultations/${tuesday}/cancel`, { cookie, body: {} });
    await env.smtp.waitForMails(before + 2);
    const studio = env.smtp.mails.slice(before).find((m) => m.envelope.to[0] === STUDIO)!;
    expect(studio.text).toContain('The consultation with Grace');
    expect(studio.text).not.toContain('free to book');
  });
});

describe('blocking time', () => {
  test('a blocked day offers no slot and says how many bookings it holds; removing it brings them back; both are logged', async () => {
    await book(TUESDAY_9);
    const cookie = await signIn(env.smtp);
    const added = await json<{ id: string; bookingsInside: number }>(
      desk('/api/records/consultations/blocks', {
        cookie,
        body: { from: '2027-03-02', to: '2027-03-03', note: 'Workshop in Seattle' },
      }),
    );
    expect(added.bookingsInside).toBe(1);
    const blocked = await slots();
    expect(
      blocked.filter((slot) => slot >= '2027-03-02T08:00Z' && slot < '2027-03-04T08:00Z'),
    ).toEqual([]);
    expect(blocked).toContain('2027-03-04T17:00:00Z');
    expect(await lastLog(cookie)).toMatchObject({ action: 'block-time', recordKind: 'block' });

    const calendar = await json<ConsultationsCalendar>(
      desk('/api/records/consultations/calendar', { cookie }),
    );
    expect(calendar.blocks).toEqual([
      expect.objectContaining({
        id: added.id,
        // Midnight to midnight in Portland (PST, UTC-8).
        start: '2027-03-02T08:00:00.000Z',
        end: '2027-03-04T08:00:00.000Z',
        note: 'Workshop in Seattle',
        createdBy: STAFF,
      }),
    ]);

    const removed = await desk(`/api/records/consultations/blocks/${added.id}/remove`, {
      cookie,
      body: {},
    });
    expect(removed.status).toBe(200);
    expect(await slots()).toContain(WEDNESDAY_9);
    expect(await lastLog(cookie)).toMatchObject({ action: 'unblock-time', recordId: added.id });
  });

  test('part of a day, and a block that ends before it starts is refused naming the field', async () => {
    const cookie = await signIn(env.smtp);
    await json(
      desk('/api/records/consultations/blocks', {
        cookie,
        body: {
          from: '2027-03-02',
          to: '2027-03-02',
          fromTime: '10:00',
          toTime: '11:30',
          note: '',
        },
      }),
    );
    const tuesday = (await slots()).filter((s) => s.startsWith('2027-03-02T1'));
    // 9:00 to 9:30 still end (with their buffer) by 10:00; nothing from 9:45 to 11:15.
    expect(tuesday).toEqual([
      '2027-03-02T17:00:00Z',
      '2027-03-02T17:15:00Z',
      '2027-03-02T17:30:00Z',
    ]);
    const backwards = await desk('/api/records/consultations/blocks', {
      cookie,
      body: { from: '2027-03-03', to: '2027-03-02', note: '' },
    });
    expect(backwards.status).toBe(422);
    expect((await backwards.json()).fieldErrors).toEqual({
      to: 'The last day must not be before the first day.',
    });
  });
});

describe('the instructor’s subscribable feed', () => {
  test('a new secret address is shown once; it serves the live bookings as a calendar; a newer one replaces it', async () => {
    const id = await book(TUESDAY_9);
    const cancelled = await book(WEDNESDAY_9, { email: 'alan@example.test', name: 'Alan Turing' });
    const cookie = await signIn(env.smtp);
    await desk(`/api/records/consultations/${cancelled}/cancel`, { cookie, body: {} });
    const { url } = await json<{ url: string }>(
      desk('/api/records/consultations/feed', { cookie, body: {} }),
    );
    // On the site's own address (the local default here), whatever host the request named.
    expect(url).toMatch(
      /^http:\/\/127\.0\.0\.1:8888\/api\/consultation\/feed\/[A-Za-z0-9_-]{43}\.ics$/,
    );
    expect(await lastLog(cookie)).toMatchObject({ action: 'new-feed-address' });
    const stored = (
      await env.db.query<{ token_sha256: string }>(
        `SELECT token_sha256 FROM consultation_feed_tokens`,
      )
    ).rows;
    expect(stored[0].token_sha256).not.toContain(url.split('/').pop()!.replace('.ics', ''));

    const feed = await consultationFeed(new Request(url));
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(feed.headers.get('cache-control')).toBe('no-store');
    const events = Object.values(ical.sync.parseICS(await feed.text())).filter(
      (c): c is VEvent => c?.type === 'VEVENT',
    );
    expect(events.map((event) => [event.uid, event.start.toISOString()])).toEqual([
      [`booking-${id}@127.0.0.1`, '2027-03-02T17:00:00.000Z'],
    ]);
    expect(String(events[0].summary)).toBe('Consultation: Grace Hopper');

    const newer = await json<{ url: string }>(
      desk('/api/records/consultations/feed', { cookie, body: {} }),
    );
    expect((await consultationFeed(new Request(url))).status).toBe(404);
    expect((await consultationFeed(new Request(newer.url))).status).toBe(200);
    const calendar = await json<ConsultationsCalendar>(
      desk('/api/records/consultations/calendar', { cookie }),
    );
    expect(calendar.feed.exists).toBe(true);
  });
});

describe('the feed holds every kind of booking', () => {
  test('a private session and a class with a place booked are in it beside the consultations, each with the UID of its own invite; the class names nobody', async () => {
    const consultation = await book(TUESDAY_9);
    const session = await bookSession(
      jsonPost(`${ORIGIN}/api/book-session`, sessionBody('private', TUESDAY_10)),
    );
    expect(session.status).toBe(200);
    const place = await bookClass(
      jsonPost(`${ORIGIN}/api/classes/book`, {
        class: 'mat-foundations-tu-1800',
        start: '2027-03-03T02:00:00.000Z',
        name: 'Ada Lovelace',
        email: 'ada@example.test',
        ...PERSON_SPAM_CHECKS,
      }),
    );
    expect(place.status).toBe(200);
    const ids = async (table: string) =>
      (await env.db.query<{ id: string }>(`SELECT id FROM ${table}`)).rows.map((r) => r.id);
    const [sessionId] = await ids('session_bookings');
    const [dateId] = await ids('class_dates');
    const cookie = await signIn(env.smtp);
    const { url } = await json<{ url: string }>(
      desk('/api/records/consultations/feed', { cookie, body: {} }),
    );
    const events = Object.values(
      ical.sync.parseICS(await (await consultationFeed(new Request(url))).text()),
    ).filter((c): c is VEvent => c?.type === 'VEVENT');
    expect(
      events
        .map((event) => [event.uid, event.start.toISOString(), String(event.summary)])
        .sort((a, b) => a[1]!.localeCompare(b[1]!)),
    ).toEqual([
      [
        `booking-${consultation}@127.0.0.1`,
        TUESDAY_9.replace('Z', '.000Z'),
        'Consultation: Grace Hopper',
      ],
      [
        `session-${sessionId}@127.0.0.1`,
        TUESDAY_10.replace('Z', '.000Z'),
        'Private Session: Grace Hopper',
      ],
      [`class-${dateId}@127.0.0.1`, '2027-03-03T02:00:00.000Z', 'Mat Foundations (1 of 4)'],
    ]);
    const sessionEvent = events.find((event) => event.uid.startsWith('session-'))!;
    expect(String(sessionEvent.location)).toContain('2140 SE Division St');
    expect(String(sessionEvent.description)).toContain('grace@example.test');
    // The class's event names nobody: the roster is on the desk.
    const classEvent = events.find((event) => event.uid.startsWith('class-'))!;
    expect(String(classEvent.description)).not.toContain('ada');
  });
});

describe('erasure', () => {
  test('reaches a participant’s bookings: the preview counts them, the erasure deletes them and their mails, and frees the time', async () => {
    const upcoming = await book(TUESDAY_9, {
      email: 'Ingrid@Example.test',
      name: 'Ingrid Okonkwo',
    });
    await book(WEDNESDAY_9);
    const cookie = await signIn(env.smtp);
    const { preview } = await json<{
      preview: { bookings: { id: string; start: string; upcoming: boolean }[]; mails: number };
    }>(desk('/api/records/erasure/preview', { cookie, body: { email: 'ingrid@example.test' } }));
    expect(preview.bookings).toEqual([
      { id: upcoming, start: '2027-03-02T17:00:00.000Z', upcoming: true },
    ]);
    expect(preview.mails).toBe(3);

    const { erased } = await json<{ erased: Record<string, number> }>(
      desk('/api/records/erasure', {
        cookie,
        body: { email: 'ingrid@example.test', confirm: 'ingrid@example.test' },
      }),
    );
    expect(erased).toMatchObject({ bookings: 1, mails: 3 });
    expect(await env.count('consultation_bookings')).toBe(1);
    expect(await env.count(`mail_outbox WHERE split_part(ref, ':', 1) = '${upcoming}'`)).toBe(0);
    expect(await slots()).toContain(TUESDAY_9);
    expect((await lastLog(cookie)).detail).toMatchObject({ bookings: 1, bookingIds: [upcoming] });
  });
});
