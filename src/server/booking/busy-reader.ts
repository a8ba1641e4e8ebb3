/**
 * Reads a copy of the instructor's calendar into busy spans (busy-times.ts) in a worker thread
 * (busy-worker.ts), within a time budget: when the budget is spent the worker is ended, whatever
 * it was doing, and the read fails with words for the desk, so the last good copy stays in use.
 * The thread that answers the pages only waits, as for a database: no calendar, however shaped
 * (thousands of events repeating every second, a line of a million dates), holds any page.
 *
 * The worker has its own memory limit; the limits of busy-times.ts (events, busy times within
 * the range) bound what it may send back.
 */
import { Worker } from 'node:worker_threads';
import type { Interval } from '../../shared/booking/intervals';
import { projectPath } from '../platform/paths';
import {
  READ_LIMITS,
  TooMuchCalendarError,
  UnreadableCalendarError,
  type BusyTimes,
  type ReadLimits,
} from './busy-times';
import type { BusyWorkerInput, BusyWorkerOutput } from './busy-worker';

/** How long one read of a copy may take before the last good copy is kept instead. */
export const READ_BUDGET_MS = 5_000;

/** What the desk says when the budget is spent. */
export const TOO_SLOW = 'Your calendar has too many repeating events to read in time.';

const WORKER = 'src/server/booking/busy-worker.ts';

export interface ReadOptions {
  budgetMs?: number;
  limits?: ReadLimits;
}

export function readCalendar(
  text: string,
  range: Interval,
  timeZone: string,
  { budgetMs = READ_BUDGET_MS, limits = READ_LIMITS }: ReadOptions = {},
): Promise<BusyTimes> {
  const input: BusyWorkerInput = {
    text,
    start: range.start.getTime(),
    end: range.end.getTime(),
    timeZone,
    limits,
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(projectPath(WORKER), {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
      void worker.terminate();
    };
    const timer = setTimeout(
      () => settle(() => reject(new TooMuchCalendarError(TOO_SLOW))),
      budgetMs,
    );
    worker.once('message', (output: BusyWorkerOutput) =>
      settle(() => (output.ok ? resolve(busyTimesOf(output)) : reject(errorOf(output)))),
    );
    worker.once('error', (error) =>
      settle(() =>
        reject(
          (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new TooMuchCalendarError('Your calendar is too large to read.')
            : new Error('The calendar reader failed.', { cause: error }),
        ),
      ),
    );
    worker.once('exit', () =>
      settle(() => reject(new Error('The calendar reader stopped without an answer.'))),
    );
  });
}

function busyTimesOf(output: Extract<BusyWorkerOutput, { ok: true }>): BusyTimes {
  return {
    busy: output.busy.map(([start, end]) => ({ start: new Date(start), end: new Date(end) })),
    events: output.events,
    unreadable: output.unreadable,
  };
}

function errorOf(output: Extract<BusyWorkerOutput, { ok: false }>): Error {
  if (output.kind === 'too-much') return new TooMuchCalendarError(output.message);
  if (output.kind === 'unreadable') return new UnreadableCalendarError(output.message);
  return new Error(output.message);
}
