/**
 * The studio's clock: times the instructor writes in content files are local date-times in an
 * IANA time zone (the studio's, from content/site.yaml, unless an event names its own), turned
 * into instants here, and shown back to visitors in that zone, saying which zone it is.
 *
 * A local time is not always one instant. On the night clocks go back, 01:30 happens twice; on
 * the night they go forward, 02:30 does not happen at all. Guessing would put an event on the
 * wrong hour without anyone noticing, so either one is refused with a message that says what
 * to write instead (for a repeated time: the offset that picks one of the two).
 */
import { Temporal } from 'temporal-polyfill';
import { isTimeZone } from '../shared/studio';
import { eventDate, eventSpan, eventTimes, monthBadge } from '../shared/time-format';

export { isTimeZone };

export const LOCAL_TIME_EXAMPLE = '2026-06-14 09:00';

// `2026-06-14 09:00`, `2026-06-14T09:00`, optionally `:ss`, optionally an offset (`-07:00`).
const LOCAL_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)\s*([+-]\d{2}:\d{2})?$/;

export type ZonedResult = { ok: true; at: Temporal.ZonedDateTime } | { ok: false; message: string };

const hhmm = (time: Temporal.PlainTime) => time.toString({ smallestUnit: 'minute' });

/**
 * The instant a local date-time written in a content file stands for in `timeZone`, or a
 * message for the instructor saying what is wrong with it.
 */
export function zonedTime(text: string, timeZone: string): ZonedResult {
  const match = LOCAL_TIME.exec(text.trim());
  if (!match) {
    return {
      ok: false,
      message: `"${text}" is not a date and time: write it as ${LOCAL_TIME_EXAMPLE} (24-hour clock, local time)`,
    };
  }
  const [, day, time, offset] = match;
  let local: Temporal.PlainDateTime;
  try {
    local = Temporal.PlainDateTime.from(`${day}T${time}`, { overflow: 'reject' });
  } catch {
    return { ok: false, message: `"${text}" is not a date on the calendar` };
  }
  const shown = `${local.toPlainDate().toString()} ${hhmm(local.toPlainTime())}`;

  if (offset) {
    try {
      const at = Temporal.ZonedDateTime.from(`${local.toString()}${offset}[${timeZone}]`, {
        offset: 'reject',
      });
      return { ok: true, at };
    } catch {
      return {
        ok: false,
        message: `${shown}${offset} is not a time in ${timeZone} (the offset does not match); leave the offset out`,
      };
    }
  }

  const earlier = local.toZonedDateTime(timeZone, { disambiguation: 'earlier' });
  const later = local.toZonedDateTime(timeZone, { disambiguation: 'later' });
  if (earlier.epochNanoseconds === later.epochNanoseconds) return { ok: true, at: earlier };

  // The change of offset that night, as the clocks on the wall show it.
  const shift = Temporal.Duration.from({
    nanoseconds: Number(later.epochNanoseconds - earlier.epochNanoseconds),
  });
  const change = earlier.getTimeZoneTransition('next');
  if (earlier.toPlainDateTime().equals(local)) {
    const from = change ? hhmm(change.toPlainTime().add(shift)) : '';
    const to = change ? hhmm(change.toPlainTime()) : '';
    return {
      ok: false,
      message:
        `${shown} happens twice in ${timeZone}: the clocks go back${change ? ` from ${from} to ${to}` : ''} that night. ` +
        `Write ${shown}${earlier.offset} for the first one or ${shown}${later.offset} for the second`,
    };
  }
  const from = change ? hhmm(change.toPlainTime().subtract(shift)) : '';
  const to = change ? hhmm(change.toPlainTime()) : '';
  return {
    ok: false,
    message: `${shown} does not exist in ${timeZone}: the clocks go forward${change ? ` from ${from} to ${to}` : ''} that night. Choose another time`,
  };
}

/**
 * When an event happens, in words, in its own time zone (named, e.g. PDT): `date` and `time`
 * for an event within one day ("Sunday, June 14, 2026" and "9:00 – 11:00 AM PDT"), or one
 * `date` line with both ends for one that runs over several days.
 */
export function describeWhen(
  start: Temporal.ZonedDateTime,
  end: Temporal.ZonedDateTime,
): { date: string; time?: string } {
  const timeZone = start.timeZoneId;
  const endHere = end.withTimeZone(timeZone);
  if (start.toPlainDate().equals(endHere.toPlainDate())) {
    return { date: eventDate(start, timeZone), time: eventTimes(start, endHere, timeZone) };
  }
  return { date: eventSpan(start, endHere, timeZone) };
}

/** "Jun" and "14": the day an event starts, for a calendar-leaf badge. */
export function dayBadge(start: Temporal.ZonedDateTime): { month: string; day: string } {
  return {
    month: monthBadge(start, start.timeZoneId),
    day: String(start.day),
  };
}

/** ISO 8601 with the offset, to the minute: `2026-06-14T09:00-07:00` (schema.org, `<time>`). */
export function isoWithOffset(at: Temporal.ZonedDateTime): string {
  return at.toString({ timeZoneName: 'never', smallestUnit: 'minute' });
}
