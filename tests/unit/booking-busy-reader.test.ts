/**
 * The bounds on reading the instructor's calendar: how much of it is read at all (events, busy
 * times within the range), and how long a read may take (busy-reader.ts: a worker thread ended
 * when its budget is spent), with the thread that answers pages free all the while.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readCalendar, TOO_SLOW } from '../../src/server/booking/busy-reader';
import {
  readBusyTimes,
  TooMuchCalendarError,
  UnreadableCalendarError,
} from '../../src/server/booking/busy-times';
import { span, STUDIO_ZONE } from '../fixtures/booking';
import { everySecondCalendar } from '../fixtures/busy-calendar';

const ROOT = resolve(import.meta.dirname, '../..');
// Thursday 26 November 2026 to four weeks on: the booking horizon and its margin.
const RANGE = span('2026-11-26T08:00:00Z', '2026-12-24T08:00:00Z');

const event = (uid: string, ...lines: string[]) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260101T000000Z',
  ...lines,
  'END:VEVENT',
];
const calendar = (...events: string[][]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    ...events.flat(),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

/** Her Thursday class, 9:00-9:30 in Portland: four of them in the range. */
const THURSDAYS = event(
  'class@test',
  'DTSTART;TZID=America/Los_Angeles:20261126T090000',
  'DTEND;TZID=America/Los_Angeles:20261126T093000',
  'RRULE:FREQ=WEEKLY;BYDAY=TH',
);
const thursdays = [
  span('2026-11-26T17:00:00Z', '2026-11-26T17:30:00Z'),
  span('2026-12-03T17:00:00Z', '2026-12-03T17:30:00Z'),
  span('2026-12-10T17:00:00Z', '2026-12-10T17:30:00Z'),
  span('2026-12-17T17:00:00Z', '2026-12-17T17:30:00Z'),
];

/** Counts the turns of the event loop while `work` runs: a loop held by the work turns rarely. */
async function turnsDuring<T>(
  work: Promise<T>,
): Promise<{ turns: number; settled: PromiseSettledResult<T> }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    turns += 1;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  const [settled] = await Promise.allSettled([work]);
  running = false;
  return { turns, settled: settled! };
}

describe('how much of a calendar is read', () => {
  test('more events than the limit: refused whole, in words for the desk', async () => {
    const text = calendar(
      ...Array.from({ length: 11 }, (_, i) =>
        event(`one-${i}@test`, 'DTSTART:20261201T170000Z', 'DTEND:20261201T173000Z'),
      ),
    );
    const limits = { events: 10, occurrences: 1_000 };

    const refused = readBusyTimes(text, RANGE, STUDIO_ZONE, limits);
    await expect(refused).rejects.toThrow(TooMuchCalendarError);
    await expect(refused).rejects.toThrow(
      'Your calendar has more than 10 events, more than the site reads.',
    );
    // Ten are read.
    const ten = calendar(
      ...Array.from({ length: 10 }, (_, i) =>
        event(`one-${i}@test`, 'DTSTART:20261201T170000Z', 'DTEND:20261201T173000Z'),
      ),
    );
    expect((await readBusyTimes(ten, RANGE, STUDIO_ZONE, limits)).events).toBe(10);
  });

  test('more busy times within the range than the limit: refused whole, however few the events', async () => {
    // One event every day of the four weeks: 28 busy times.
    const daily = calendar(
      event('daily@test', 'DTSTART:20261126T170000Z', 'DTEND:20261126T173000Z', 'RRULE:FREQ=DAILY'),
    );

    await expect(
      readBusyTimes(daily, RANGE, STUDIO_ZONE, { events: 1_000, occurrences: 20 }),
    ).rejects.toThrow(
      'Your calendar has more than 20 busy times in the coming weeks, more than the site reads.',
    );
    const read = await readBusyTimes(daily, RANGE, STUDIO_ZONE, { events: 1_000, occurrences: 28 });
    expect(read.busy).toHaveLength(28);
  });
});

describe('how long a read may take', () => {
  test('3,000 events repeating every second: the budget ends the read, and the page thread kept turning', async () => {
    const text = everySecondCalendar(3_000);
    expect(text.length).toBeLessThan(420_000);

    const { turns, settled } = await turnsDuring(
      readCalendar(text, RANGE, STUDIO_ZONE, { budgetMs: 1_500 }),
    );

    expect(settled.status).toBe('rejected');
    const error = (settled as PromiseRejectedResult).reason as Error;
    expect(error).toBeInstanceOf(TooMuchCalendarError);
    expect(error.message).toBe(TOO_SLOW);
    expect(TOO_SLOW).toBe('Your calendar has too many repeating events to read in time.');
    // Read on this thread, the calendar would hold it for minutes: the loop would turn a few times
    // (the parser's batches), not thousands.
    expect(turns).toBeGreaterThan(1_000);
  }, 30_000);

  test('a date line of 100,000 bare parameters (`;a=a=a=...`, no value): read within the budget, the event unreadable', async () => {
    // The floating-time anchoring's pattern once took time growing with the square of such a
    // line: some minutes for this one, past any budget.
    const text = calendar(THURSDAYS, event('odd@test', `DTSTART;X-A=${'a='.repeat(100_000)}`));

    const read = await readCalendar(text, RANGE, STUDIO_ZONE);

    expect(read).toEqual({ busy: thursdays, events: 2, unreadable: 1 });
  }, 30_000);

  test('a calendar of the usual kind reads the same in the worker as on this thread', async () => {
    const text = calendar(
      THURSDAYS,
      event('dentist@test', 'DTSTART:20261201T230000Z', 'DTEND:20261201T233000Z'),
    );

    const read = await readCalendar(text, RANGE, STUDIO_ZONE);

    expect(read).toEqual(await readBusyTimes(text, RANGE, STUDIO_ZONE));
    expect(read).toEqual({
      busy: [
        ...thursdays.slice(0, 2),
        span('2026-12-01T23:00:00Z', '2026-12-01T23:30:00Z'),
        ...thursdays.slice(2),
      ].sort((a, b) => a.start.getTime() - b.start.getTime()),
      events: 2,
      unreadable: 0,
    });
  }, 30_000);

  test('what is not a calendar is refused by the worker as on this thread; the limits travel with it', async () => {
    await expect(
      readCalendar('<!doctype html><title>Sign in</title>', RANGE, STUDIO_ZONE),
    ).rejects.toThrow(new UnreadableCalendarError('This is not an iCalendar file.'));
    const text = calendar(THURSDAYS);
    await expect(
      readCalendar(text, RANGE, STUDIO_ZONE, { limits: { events: 10, occurrences: 3 } }),
    ).rejects.toThrow(TooMuchCalendarError);
  }, 30_000);
});

describe('the worker ships with the functions', () => {
  test("every file the worker runs, as Node runs it (value imports), is in netlify.toml's included_files", () => {
    const toml = readFileSync(resolve(ROOT, 'netlify.toml'), 'utf8');
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(resolve(ROOT, file), 'utf8');
      for (const [, from] of source.matchAll(/^import (?!type )[^;]*? from '(\.[^']+)';/gms)) {
        expect(from, `${file} imports ${from} without its extension`).toMatch(/\.ts$/);
        visit(resolve(ROOT, file, '..', from!).slice(ROOT.length + 1));
      }
    };
    visit('src/server/booking/busy-worker.ts');
    expect(seen.size).toBeGreaterThan(5);
    for (const file of seen) expect(toml).toContain(`"${file}"`);
  });
});
