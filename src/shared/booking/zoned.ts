/**
 * The studio's clock: converting between exact instants (what is stored and compared) and the
 * dates and wall-clock times of the studio's zone (how they are written for people:
 * shared/time-format.ts). Temporal does the zone arithmetic
 * from the runtime's time-zone database, never from an offset table of ours, and never from the
 * zone the server process happens to run in.
 */
import { Temporal } from 'temporal-polyfill';
import type { Interval } from './intervals';

export function instantOf(date: Date): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(date.getTime());
}

export function dateOf(instant: Temporal.Instant): Date {
  return new Date(instant.epochMilliseconds);
}

/** The studio's calendar date at `instant`. */
export function localDate(instant: Temporal.Instant, timeZone: string): Temporal.PlainDate {
  return instant.toZonedDateTimeISO(timeZone).toPlainDate();
}

/**
 * The instant a wall-clock time on `date` names in the zone. A time the clocks skip (02:30 on
 * the spring-forward night) moves forward by the gap; a time that happens twice (01:30 on the
 * fall-back night) is the first of the two, as RFC 5545 reads local times.
 */
export function instantAt(date: Temporal.PlainDate, time: string, timeZone: string) {
  const plainTime = Temporal.PlainTime.from(time);
  return date.toZonedDateTime({ timeZone, plainTime }).toInstant();
}

/** Midnight starting `date` in the zone (or the first instant of the day, where midnight is skipped). */
export function startOfDay(date: Temporal.PlainDate, timeZone: string): Temporal.Instant {
  return date.toZonedDateTime({ timeZone }).toInstant();
}

/** The dates [first, end) as whole days in the zone; an end not after `first` still blocks `first`. */
export function wholeDays(
  first: Temporal.PlainDate,
  end: Temporal.PlainDate,
  timeZone: string,
): Interval {
  const last = Temporal.PlainDate.compare(end, first) > 0 ? end : first.add({ days: 1 });
  return { start: dateOf(startOfDay(first, timeZone)), end: dateOf(startOfDay(last, timeZone)) };
}
