/**
 * RDATE: dates a recurring event also happens on. node-ical 0.27 keeps the property as text and
 * its expansion leaves it out, so it is read here: DATE-TIME values (UTC, or in their TZID),
 * DATE values (whole days in the studio's zone) and PERIOD values (start/end, start/duration).
 * A date removed by EXDATE or moved by a RECURRENCE-ID override is not added; an override of an
 * event without RRULE (which node-ical's expansion does not visit) is added here.
 */
import type { VEvent } from 'node-ical';
import { Temporal } from 'temporal-polyfill';
import { isTimeZone } from '../../shared/time-zone.ts';
import { dateOf, wholeDays } from '../../shared/booking/zoned.ts';
import { allDayDate } from './all-day.ts';
import type { Occurrence } from './occurrence';

type Value = string | { params?: Record<string, string>; val: string };

const STAMP = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/;
const DAY = 24 * 60 * 60 * 1000;

/** A DATE as a PlainDate, a DATE-TIME as an Instant (read in `zone` unless it ends in Z). */
function readStamp(text: string, zone: string): Temporal.PlainDate | Temporal.Instant {
  const match = STAMP.exec(text.trim());
  if (!match) throw new Error(`RDATE value "${text}" is not a date`);
  const [, y, m, d, hh, mm, ss, utc] = match;
  if (hh === undefined) return Temporal.PlainDate.from(`${y}-${m}-${d}`);
  const local = Temporal.PlainDateTime.from(`${y}-${m}-${d}T${hh}:${mm}:${ss}`);
  return utc
    ? Temporal.Instant.from(`${local.toString()}Z`)
    : local.toZonedDateTime(zone).toInstant();
}

export function rdateOccurrences(event: VEvent, timeZone: string): Occurrence[] {
  const values = ([] as unknown[]).concat(event['rdate'] ?? []) as Value[];
  const skipped = { ...event.exdate, ...event.recurrences };
  const length = event.end ? event.end.getTime() - event.start.getTime() : 0;
  const found: Occurrence[] = [];
  for (const value of values) {
    const [text, tzid] =
      typeof value === 'string' ? [value, undefined] : [value.val, value.params?.TZID];
    // A TZID the runtime does not know (a Windows name) is the one node-ical resolved for DTSTART.
    const zone = tzid && isTimeZone(tzid) ? tzid : (event.start.tz ?? timeZone);
    for (const item of String(text).split(',')) {
      const [first = '', second] = item.split('/');
      const start = readStamp(first, zone);
      if (start instanceof Temporal.PlainDate) {
        const days = Math.max(1, Math.round(length / DAY));
        const span = wholeDays(start, start.add({ days }), timeZone);
        if (!Object.hasOwn(skipped, start.toString())) found.push({ span, event });
        continue;
      }
      const span = { start: dateOf(start), end: endOf(start, second, length, zone) };
      if (!Object.hasOwn(skipped, span.start.toISOString())) found.push({ span, event });
    }
  }
  return [...found, ...lonelyOverrides(event, timeZone)];
}

/** The end of a DATE-TIME: the event's own length, or the PERIOD's end or duration. */
function endOf(start: Temporal.Instant, second: string | undefined, length: number, zone: string) {
  if (second === undefined) return new Date(start.epochMilliseconds + length);
  if (/^[+-]?P/.test(second)) {
    return dateOf(start.toZonedDateTimeISO(zone).add(Temporal.Duration.from(second)).toInstant());
  }
  const end = readStamp(second, zone);
  if (end instanceof Temporal.PlainDate)
    throw new Error(`RDATE period end "${second}" has no time`);
  return dateOf(end);
}

/** Overrides of an event without RRULE: node-ical's expansion only visits those of an RRULE. */
function lonelyOverrides(event: VEvent, timeZone: string): Occurrence[] {
  if (event.rrule || !event.recurrences) return [];
  const overrides = new Set(Object.values(event.recurrences) as VEvent[]);
  return [...overrides].flatMap((override) => {
    const { start, end } = override;
    if (!(start instanceof Date)) return [];
    if (!start.dateOnly) return [{ span: { start, end: end ?? start }, event: override }];
    const date = allDayDate(start);
    return [{ span: wholeDays(date, date.add({ days: 1 }), timeZone), event: override }];
  });
}
