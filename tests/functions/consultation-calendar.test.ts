/**
 * The instructor's own calendar as busy times (CONSULTATION_BUSY_ICS_URL), served by a real HTTP
 * server the test controls: what it blocks, how often it is read, and what happens when it cannot
 * be read. The studio's clock is the test's; nothing sleeps.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import bookSession from '../../functions/book-session';
import { renderPage } from '../fixtures/on-demand';
import { busyReadsDone } from '../../src/server/booking/busy-copy';
import { advanceClock, setClock } from '../../src/server/platform/clock';
import { everySecondCalendar } from '../fixtures/busy-calendar';
import { useFunctionEnv } from '../fixtures/function-env';
import { sessionBody } from '../fixtures/submissions';
import { desk, signIn, STAFF } from './desk';
import { jsonPost } from './harness';

const env = useFunctionEnv();
const SITE = 'http://127.0.0.1:8888';
const NOW = new Date('2027-03-01T11:59:00Z');

/**
 * Every Tuesday 9:00-9:30 in Portland, but not on 9 March (EXDATE), and on 16 March moved to
 * 10:00-10:30 (RECURRENCE-ID); plus a one-off on Wednesday 3 March, 15:00-15:30 UTC-8 written
 * in UTC, and an event shown as free (TRANSP:TRANSPARENT) that blocks nothing.
 */
const CALENDAR = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Busy//EN',
  'BEGIN:VEVENT',
  'UID:weekly@test',
  'DTSTAMP:20270201T000000Z',
  'DTSTART;TZID=America/Los_Angeles:20270302T090000',
  'DTEND;TZID=America/Los_Angeles:20270302T093000',
  'RRULE:FREQ=WEEKLY;BYDAY=TU',
  'EXDATE;TZID=America/Los_Angeles:20270309T090000',
  'SUMMARY:Private client',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:weekly@test',
  'DTSTAMP:20270201T000000Z',
  'RECURRENCE-ID;TZID=America/Los_Angeles:20270316T090000',
  'DTSTART;TZID=America/Los_Angeles:20270316T100000',
  'DTEND;TZID=America/Los_Angeles:20270316T103000',
  'SUMMARY:Private client (moved)',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:once@test',
  'DTSTAMP:20270201T000000Z',
  'DTSTART:20270303T230000Z',
  'DTEND:20270303T233000Z',
  'SUMMARY:Dentist',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:free@test',
  'DTSTAMP:20270201T000000Z',
  'DTSTART:20270304T170000Z',
  'DTEND:20270304T190000Z',
  'TRANSP:TRANSPARENT',
  'SUMMARY:Reading (free)',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

interface Served {
  status: number;
  body: string;
  /** Never answer at all (a server that hangs). */
  hang?: boolean;
}

let server: Server;
let served: Served;
let requests = 0;
let address = '';
/** The answers a hanging calendar has not given yet: given at the end of each test. */
const hung: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests += 1;
    if (served.hang) {
      hung.push(res);
      return;
    }
    res.writeHead(served.status, { 'content-type': 'text/calendar' });
    res.end(served.body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  address = `http://127.0.0.1:${port}/calendar/ical/secret-token-9f8e7d/basic.ics`;
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  delete process.env.PAGES_DIR;
});
beforeEach(() => {
  setClock(NOW);
  served = { status: 200, body: CALENDAR };
  requests = 0;
  vi.stubEnv('CONSULTATION_BUSY_ICS_URL', address);
  // Long enough that the calendar server of this process answers in time on a busy machine.
  vi.stubEnv('CONSULTATION_BUSY_TIMEOUT_MS', '5000');
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
});
afterEach(async () => {
  // What the reads of this test left under way ends before the next test's data.
  for (const res of hung.splice(0)) res.destroy();
  await busyReadsDone();
  setClock(undefined);
  vi.unstubAllEnvs();
});

/** The slots the page offers, as soon as it answers (a read it set going may go on). */
async function offered(): Promise<string[]> {
  const answer = await renderPage(new Request(`${SITE}/consultation`));
  expect(answer.status).toBe(200);
  return [...(await answer.text()).matchAll(/name="slot" value="([^"]+)"/g)].map((m) => m[1]);
}

/** The slots the page offers, once the read of the calendar it set going has ended too. */
async function slots(): Promise<string[]> {
  const all = await offered();
  await busyReadsDone();
  return all;
}

/** The slots of one Portland day, as "09:00"-style times, from ISO instants in UTC. */
function on(all: string[], date: string): string[] {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Los_Angeles',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return all
    .map((slot) => format.format(new Date(slot)).replace(',', ''))
    .filter((local) => local.startsWith(date))
    .map((local) => local.slice(11));
}

const morning = [
  '09:00',
  '09:15',
  '09:30',
  '09:45',
  '10:00',
  '10:15',
  '10:30',
  '10:45',
  '11:00',
  '11:15',
];
const without = (times: string[], gone: string[]) => times.filter((time) => !gone.includes(time));
/** The slots from Tuesday on: the clock moving a minute or two takes Monday's first ones away. */
const fromTuesday = (all: string[]) => all.filter((slot) => slot >= '2027-03-02T08:00');

describe('busy times from the instructor’s calendar', () => {
  test('a weekly event with an exception and a moved occurrence removes exactly the slots it overlaps', async () => {
    const all = await slots();
    // A slot holds itself and the 15-minute buffer after it: 9:00 and 9:15 reach into 9:00-9:30.
    expect(on(all, '2027-03-02').filter((t) => t < '12:00')).toEqual(
      without(morning, ['09:00', '09:15']),
    );
    // 9 March is excepted (EXDATE): the whole morning is free.
    expect(on(all, '2027-03-09').filter((t) => t < '12:00')).toEqual(morning);
    // 16 March's occurrence moved to 10:00-10:30: 9:45, 10:00 and 10:15 reach into it.
    expect(on(all, '2027-03-16').filter((t) => t < '12:00')).toEqual(
      without(morning, ['09:45', '10:00', '10:15']),
    );
    // The one-off, written in UTC: 15:00-15:30 Portland on Wednesday 3 March.
    expect(on(all, '2027-03-03').filter((t) => t > '12:00')).toEqual([
      '15:30',
      '15:45',
      '16:00',
      '16:15',
      '16:30',
      '16:45',
    ]);
    // Shown as free: blocks nothing on Thursday morning.
    expect(on(all, '2027-03-04').filter((t) => t < '12:00')).toEqual(morning);
  });

  test('is read at most once a minute, whatever the number of pages; a stale copy is served and read again', async () => {
    await slots();
    await slots();
    await slots();
    expect(requests).toBe(1);
    advanceClock(30_000);
    await slots();
    expect(requests).toBe(1);
    advanceClock(31_000);
    await slots(); // served from the copy, read again meanwhile
    expect(requests).toBe(2);
  });

  test('a calendar that stops answering holds up no page: the last good copy answers at once, minute after minute, while it is read again', async () => {
    // A wait for the calendar would outlast the test itself.
    vi.stubEnv('CONSULTATION_BUSY_TIMEOUT_MS', String(10 * 60_000));
    const booked = await bookSession(
      jsonPost(`${SITE}/api/book-session`, sessionBody('private', '2027-03-04T17:00:00Z')),
    );
    expect(booked.status).toBe(200);
    const { booking } = (await booked.json()) as { booking: { manage: string } };
    const before = fromTuesday(await slots());
    served = { ...served, hang: true };
    for (let minute = 1; minute <= 3; minute += 1) {
      advanceClock(61_000);
      expect(fromTuesday(await offered())).toEqual(before);
      const manage = await renderPage(new Request(`${SITE}${booking.manage}`));
      expect(manage.status).toBe(200);
      expect(await manage.text()).toContain('Choose another time');
      await expect.poll(() => requests).toBe(1 + minute);
    }
  });

  test('when it cannot be read, the last good copy stays in use and the desk says what went wrong, never the address', async () => {
    const before = fromTuesday(await slots());
    served = { status: 500, body: 'Internal error' };
    advanceClock(61_000);
    expect(fromTuesday(await slots())).toEqual(before);
    expect(requests).toBe(2);

    const cookie = await signIn(env.smtp);
    const answer = await desk('/api/records/consultations/calendar', { cookie });
    const text = await answer.text();
    expect(text).not.toContain('secret-token');
    const { busy } = JSON.parse(text) as { busy: Record<string, unknown> };
    expect(busy).toMatchObject({
      configured: true,
      hint: expect.stringMatching(/^127\.0\.0\.1:\d+\/…$/),
      events: 3,
      unreadable: 0,
      error: 'The calendar address answered HTTP 500.',
    });
    expect(Date.parse(busy.checkedAt as string)).toBeGreaterThan(
      Date.parse(busy.fetchedAt as string),
    );

    // Back to normal: the error is gone at the next read.
    served = { status: 200, body: CALENDAR };
    advanceClock(61_000);
    await slots();
    await slots();
    const again = (await (
      await desk('/api/records/consultations/calendar', { cookie })
    ).json()) as {
      busy: Record<string, unknown>;
    };
    expect(again.busy.error).toBeNull();
  });

  test('a calendar never read and not answering: the page still comes once the time limit fires, from the weekly windows', async () => {
    served = { status: 200, body: CALENDAR, hang: true };
    const all = await slots();
    expect(on(all, '2027-03-02').filter((t) => t < '12:00')).toEqual(morning);
    const { rows } = await env.db.query<{ error: string; fetched_at: Date | null }>(
      `SELECT error, fetched_at FROM consultation_busy_feed`,
    );
    expect(rows[0]).toEqual({
      error: 'The calendar address did not answer within 5000 ms.',
      fetched_at: null,
    });
  });

  test('what answers is not a calendar (a sign-in page after the address was reset): the last copy stays', async () => {
    const before = fromTuesday(await slots());
    served = { status: 200, body: '<!doctype html><title>Sign in</title>' };
    advanceClock(61_000);
    await slots();
    advanceClock(1_000);
    expect(fromTuesday(await slots())).toEqual(before);
    const { rows } = await env.db.query<{ error: string }>(
      `SELECT error FROM consultation_busy_feed`,
    );
    expect(rows[0].error).toMatch(/something other than a calendar/);
  });

  test('3,000 events repeating every second: the read stops at its budget, the last good copy stays and the desk says so', async () => {
    const before = fromTuesday(await slots());
    const { rows: first } = await env.db.query<{ fetched_at: Date }>(
      `SELECT fetched_at FROM consultation_busy_feed`,
    );
    served = { status: 200, body: everySecondCalendar(3_000) };
    advanceClock(61_000);
    // The stale copy answers; the read after it (awaited here, as no waitUntil is given) ends
    // when its budget is spent instead of holding the server for minutes.
    expect(fromTuesday(await slots())).toEqual(before);
    expect(requests).toBe(2);
    advanceClock(1_000);
    expect(fromTuesday(await slots())).toEqual(before);

    const cookie = await signIn(env.smtp);
    const { busy } = (await (
      await desk('/api/records/consultations/calendar', { cookie })
    ).json()) as { busy: Record<string, unknown> };
    expect(busy).toMatchObject({
      events: 3,
      unreadable: 0,
      error: 'Your calendar has too many repeating events to read in time.',
      fetchedAt: first[0]!.fetched_at.toISOString(),
    });
  }, 60_000);

  test('a copy older than its stored spans (a week unreadable): read again once for the pages asking together, and stored', async () => {
    await slots();
    served = { status: 500, body: 'Internal error' };
    advanceClock(8 * 24 * 3_600_000);
    const { rows: before } = await env.db.query<{ busy_to: Date }>(
      `SELECT busy_to FROM consultation_busy_feed`,
    );

    // Three pages at once: the copy's text is read again once (one worker), for all three.
    const pages = await Promise.all([slots(), slots(), slots()]);

    // The weekly Tuesday still blocks, on Tuesdays the first read's spans did not reach.
    for (const all of pages) {
      expect(on(all, '2027-03-30').filter((t) => t < '12:00')).toEqual(
        without(morning, ['09:00', '09:15']),
      );
    }
    const { rows } = await env.db.query<{ busy_from: Date; busy_to: Date; error: string }>(
      `SELECT busy_from, busy_to, error FROM consultation_busy_feed`,
    );
    expect(rows[0]!.busy_to.getTime()).toBeGreaterThan(before[0]!.busy_to.getTime());
    expect(rows[0]!.busy_from.getTime()).toBeGreaterThan(NOW.getTime());
    expect(rows[0]!.error).toBe('The calendar address answered HTTP 500.');
  });

  test('a new address starts afresh: the old address’s copy is not used for it', async () => {
    await slots();
    vi.stubEnv('CONSULTATION_BUSY_ICS_URL', address.replace('secret-token', 'other-token'));
    served = { status: 200, body: CALENDAR.replace(/RRULE:[^\r]*\r\n/, '') };
    const all = await slots();
    expect(requests).toBe(2);
    // Only the first Tuesday now, without the weekly rule.
    expect(on(all, '2027-03-09').filter((t) => t < '12:00')).toEqual(morning);
  });
});
