/**
 * Daily schedules, written as Netlify reads a scheduled function's `config.schedule`: a cron line
 * `M H * * *` in UTC. The retention run is one; the desk says when it runs next, and `npm start`
 * (scripts/server/, which Node runs as it is: so this file imports nothing) runs a scheduled
 * function with such a schedule at that minute, as Netlify would.
 */

export interface DailyTime {
  hour: number;
  minute: number;
}

/** `0 9 * * *` → 09:00 UTC; `undefined` for any schedule that is not once a day at a set time. */
export function dailyTime(cron: string): DailyTime | undefined {
  const match = /^(\d{1,2}) (\d{1,2}) \* \* \*$/.exec(cron.trim());
  if (!match) return undefined;
  const [minute, hour] = [Number(match[1]), Number(match[2])];
  return minute < 60 && hour < 24 ? { hour, minute } : undefined;
}

function daily(cron: string): DailyTime {
  const time = dailyTime(cron);
  if (!time) throw new Error(`Not a daily schedule (M H * * *): ${cron}`);
  return time;
}

const atTime = (day: Date, { hour, minute }: DailyTime) =>
  new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hour, minute));

/** The first run of a daily `cron` after `after`. */
export function nextDailyRun(cron: string, after: Date): Date {
  const today = atTime(after, daily(cron));
  return today > after ? today : new Date(today.getTime() + 86_400_000);
}

/** The last run of a daily `cron` at or before `at`. */
export function lastDailyRun(cron: string, at: Date): Date {
  const today = atTime(at, daily(cron));
  return today <= at ? today : new Date(today.getTime() - 86_400_000);
}
