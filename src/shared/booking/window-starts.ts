/**
 * Where slots may start on one studio-local date, before anything taken is subtracted: every
 * `stepMinutes` of real time from the start of each of that weekday's windows, as long as the
 * whole consultation ends by the window's end.
 */
import { Temporal } from 'temporal-polyfill';
import { WEEKDAYS, type Availability } from './availability';
import { instantAt } from './zoned';

export function windowStarts(
  availability: Availability,
  date: Temporal.PlainDate,
  timeZone: string,
): Temporal.Instant[] {
  const weekday = WEEKDAYS[date.dayOfWeek - 1]!;
  const length = { minutes: availability.lengthMinutes };
  const step = { minutes: availability.stepMinutes ?? availability.lengthMinutes };
  const starts = new Map<number, Temporal.Instant>();
  for (const window of availability.windows.filter((entry) => entry.days.includes(weekday))) {
    const end = instantAt(date, window.to, timeZone);
    let start = instantAt(date, window.from, timeZone);
    while (Temporal.Instant.compare(start.add(length), end) <= 0) {
      starts.set(start.epochMilliseconds, start);
      start = start.add(step);
    }
  }
  // Keyed by instant: no slot can be offered twice, even by windows that touch.
  return [...starts.values()].sort(Temporal.Instant.compare);
}
