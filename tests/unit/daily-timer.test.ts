/**
 * `npm start` runs a daily scheduled function (the retention run) at its minute, as Netlify does
 * (scripts/server/daily.ts): driven here by vitest's fake timers, which move `Date` and the
 * timers together.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { startDailyTimer, startIntervalTimer } from '../../scripts/server/daily.ts';

afterEach(() => {
  vi.useRealTimers();
});

test('runs at the schedule’s minute (UTC) every day, and never two runs at once', async () => {
  vi.useFakeTimers({ now: new Date('2026-11-23T08:58:30Z') });
  const runs: string[] = [];
  let finish: (() => void) | undefined;
  const timer = startDailyTimer({
    name: 'retention',
    schedule: '0 9 * * *',
    run: async () => {
      runs.push(new Date().toISOString());
      // The first run takes over a day: the next day's minute passes while it is busy.
      if (runs.length === 1) await new Promise<void>((done) => (finish = done));
      return new Response('{}');
    },
  });
  await vi.advanceTimersByTimeAsync(60_000);
  expect(runs).toEqual([]);
  await vi.advanceTimersByTimeAsync(30_000);
  expect(runs).toEqual(['2026-11-23T09:00:00.000Z']);
  await vi.advanceTimersByTimeAsync(86_400_000);
  expect(runs).toHaveLength(1);
  finish!();
  await vi.advanceTimersByTimeAsync(86_400_000);
  expect(runs).toEqual(['2026-11-23T09:00:00.000Z', '2026-11-25T09:00:00.000Z']);
  await timer.stop();
  await vi.advanceTimersByTimeAsync(2 * 86_400_000);
  expect(runs).toHaveLength(2);
});

test('a schedule every N minutes runs every N minutes, never two runs at once, and stops', async () => {
  vi.useFakeTimers({ now: new Date('2026-11-23T08:58:30Z') });
  let runs = 0;
  let finish: (() => void) | undefined;
  const timer = startIntervalTimer({
    name: 'classes-steps',
    everyMs: 5 * 60_000,
    run: async () => {
      runs++;
      if (runs === 2) await new Promise<void>((done) => (finish = done));
      return new Response('{}');
    },
  });
  await vi.advanceTimersByTimeAsync(5 * 60_000);
  expect(runs).toBe(1);
  await vi.advanceTimersByTimeAsync(5 * 60_000);
  expect(runs).toBe(2);
  // The second run is still going: the next minute passes it by.
  await vi.advanceTimersByTimeAsync(5 * 60_000);
  expect(runs).toBe(2);
  finish!();
  await vi.advanceTimersByTimeAsync(5 * 60_000);
  expect(runs).toBe(3);
  await timer.stop();
  await vi.advanceTimersByTimeAsync(30 * 60_000);
  expect(runs).toBe(3);
});
