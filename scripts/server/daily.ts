/**
 * Scheduled functions that run once a day (`M H * * *`, UTC, as Netlify reads them), run by
 * `npm start` at that minute as Netlify runs them: the retention run, the daily rebuild (which
 * finds nothing to do off Netlify). A run never overlaps the previous one; the timer reads the
 * real time, and a machine that was off at the minute waits for the next day, as Netlify does
 * not catch up on a missed run either.
 */
import { nextDailyRun } from '../../src/server/platform/schedule.ts';

export interface DailyTimer {
  /** Resolves when the run in progress, if any, has finished. */
  stop(): Promise<void>;
}

export function startDailyTimer(options: {
  name: string;
  schedule: string;
  run(): Promise<Response>;
}): DailyTimer {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const arm = () => {
    if (stopped) return;
    const wait = nextDailyRun(options.schedule, new Date()).getTime() - Date.now();
    // setTimeout holds at most about 24.8 days: a day is well within it.
    timer = setTimeout(fire, Math.max(0, wait));
    timer.unref();
  };
  const fire = () => {
    if (running || stopped) return arm();
    running = (async () => {
      try {
        const response = await options.run();
        if (!response.ok) console.warn(`${options.name} answered ${response.status}`);
        await response.body?.cancel();
      } catch (error) {
        console.warn(`${options.name} failed:`, (error as Error)?.name);
      }
    })().finally(() => {
      running = undefined;
    });
    // The next day's run, armed a second after this minute so it is not this one again.
    setTimeout(arm, 1_000).unref();
  };
  arm();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * A scheduled function that runs every N minutes (a schedule starting `*\/N`: the classes'
 * timed steps), run by `npm start` every N minutes from its start. A run never overlaps the
 * previous one.
 */
export function startIntervalTimer(options: {
  name: string;
  everyMs: number;
  run(): Promise<Response>;
}): DailyTimer {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = (async () => {
      try {
        const response = await options.run();
        if (!response.ok) console.warn(`${options.name} answered ${response.status}`);
        await response.body?.cancel();
      } catch (error) {
        console.warn(`${options.name} failed:`, (error as Error)?.name);
      }
    })().finally(() => {
      running = undefined;
    });
  }, options.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
