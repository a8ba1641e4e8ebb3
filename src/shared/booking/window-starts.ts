/**
 * Where slots may start on one studio-local date, before anything taken is subtracted: every
 * `stepMinutes` of real time from the start of each of that weekday's windows, as long as the
 * whole consultation ends by the window's end; and whether a booked span lies inside them.
 */
import { Temporal } from 'temporal-polyfill';
import { WEEKDAYS, type Availability } from './availability';
import { instantAt, localDate } from './zoned';

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

/**
 * Whether [start, end) lies inside one of the weekly windows of its studio-local day: a time the
 * current hours allow. A booking made before the hours changed may no longer be.
 */
export function withinHours(
  availability: Availability,
  span: { start: Date; end: Date },
  timeZone: string,
): boolean {
  const start = Temporal.Instant.fromEpochMilliseconds(span.start.getTime());
  const end = Temporal.Instant.fromEpochMilliseconds(span.end.getTime());
  const date = localDate(start, timeZone);
  const weekday = WEEKDAYS[date.dayOfWeek - 1]!;
  return availability.windows.some(
    (window) =>
      window.days.includes(weekday) &&
      Temporal.Instant.compare(instantAt(date, window.from, timeZone), start) <= 0 &&
      Temporal.Instant.compare(end, instantAt(date, window.to, timeZone)) <= 0,
  );
}
