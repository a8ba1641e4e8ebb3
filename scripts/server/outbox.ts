/**
 * The mail outbox timer. On Netlify the scheduled function `retry-mail` runs every five minutes;
 * here the server runs the very same function (in-process, from its bundle) every
 * OUTBOX_INTERVAL_MS, and once two seconds after starting, for mail left owed while it was stopped.
 * It first asks the database whether any mail is due (one cheap query), so an idle server does
 * no work; a run never overlaps the previous one.
 */
export interface OutboxTimer {
  /** Resolves when the run in progress, if any, has finished. */
  stop(): Promise<void>;
}

export function startOutboxTimer(options: {
  intervalMs: number;
  mailIsDue(): Promise<boolean>;
  run(): Promise<Response>;
}): OutboxTimer {
  const { intervalMs } = options;
  let running: Promise<void> | undefined;
  let stopped = false;

  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      try {
        if (!(await options.mailIsDue()) || stopped) return;
        const response = await options.run();
        if (!response.ok) {
          console.warn(`The mail retry run answered ${response.status}; trying again later.`);
        }
        await response.body?.cancel();
      } catch (error) {
        console.warn('The mail retry run failed; trying again later:', (error as Error)?.name);
      }
    })().finally(() => (running = undefined));
  };

  const interval = intervalMs > 0 ? setInterval(tick, intervalMs) : undefined;
  const first = intervalMs > 0 ? setTimeout(tick, Math.min(2_000, intervalMs)) : undefined;
  interval?.unref();
  first?.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(interval);
      clearTimeout(first);
      await running;
    },
  };
}
