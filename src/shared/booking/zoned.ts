/**
 * The studio's clock: converting between exact instants (what is stored and compared) and the
 * dates and wall-clock times people read in the studio's zone. Temporal does the zone arithmetic
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

// Newer ICU writes a narrow no-break space before AM/PM (and thin spaces around a range's dash);
// one plain space reads the same in a page, a plain-text mail and a test.
const tidy = (text: string) => text.replace(/[\u202f\u00a0\u2009]/g, ' ');

// A formatter is costly to make and a page of slots labels hundreds of times: one per zone and
// kind, made once.
const formats = new Map<string, Intl.DateTimeFormat>();

function formatter(key: string, timeZone: string, options: Intl.DateTimeFormatOptions) {
  let format = formats.get(`${key} ${timeZone}`);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, ...options });
    formats.set(`${key} ${timeZone}`, format);
  }
  return format;
}

/** "9:00 AM PST": the zone's abbreviation tells the two 1:30 AMs of the fall-back night apart. */
export function timeLabel(instant: Temporal.Instant, timeZone: string): string {
  const options = { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' } as const;
  return tidy(formatter('label', timeZone, options).format(instant.epochMilliseconds));
}

/** "Sunday, March 14" */
export function dayLabel(date: Temporal.PlainDate): string {
  // The date as a UTC calendar day: no zone can move it to another day.
  const options = { weekday: 'long', month: 'long', day: 'numeric' } as const;
  const utc = Date.UTC(date.year, date.month - 1, date.day);
  return tidy(formatter('day', 'UTC', options).format(utc));
}

/** "09:00": the wall-clock time in the zone, 24-hour. */
export function clockTime(instant: Temporal.Instant, timeZone: string): string {
  const options = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
  return formatter('clock', timeZone, options).format(instant.epochMilliseconds);
}

/** "Monday, March 15, 2027": the studio's date of `instant`, with its year (for a mail). */
export function fullDateLabel(instant: Temporal.Instant, timeZone: string): string {
  return tidy(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'long',
      month: 'long',
      day: 'numeric',
      year: 'numeric',
    }).format(instant.epochMilliseconds),
  );
}

/** "Thursday, November 26, 2026, 10:32 AM PST": a moment on the studio's clock, its zone named. */
export function momentLabel(instant: Temporal.Instant, timeZone: string): string {
  return `${fullDateLabel(instant, timeZone)}, ${timeLabel(instant, timeZone)}`;
}

/** "9:00 – 9:15 AM PDT": a span within one day, on the studio's clock, its zone named. */
export function timeRangeLabel(
  start: Temporal.Instant,
  end: Temporal.Instant,
  timeZone: string,
): string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  return tidy(format.formatRange(start.epochMilliseconds, end.epochMilliseconds));
}

/** "Pacific Time": the zone as people name it, whichever half of the year it is. */
export function zoneName(timeZone: string): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longGeneric' })
    .formatToParts(0)
    .find((entry) => entry.type === 'timeZoneName');
  return part?.value ?? timeZone;
}
