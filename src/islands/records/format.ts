import {
  localTimeZone,
  mediumDate,
  mediumMoment,
  shortDate,
  shortDateYear,
  shortMoment,
  shortMomentRange,
  shortTime,
  startsDay,
  zoneName,
} from '../../shared/time-format';

/** Dates and times as the instructor reads them, in her own time zone. */
export const when = (iso: string) => mediumMoment(iso);
export const day = (iso: string) => mediumDate(iso);
export const time = (iso: string) => shortTime(iso);

/** "1 waiver", "3 waivers". */
export const count = (n: number, noun: string, plural = `${noun}s`) =>
  `${n} ${n === 1 ? noun : plural}`;

/** The browser's time zone, which the desk's date ranges are read in. */
export const timeZone = localTimeZone;

/** A retention run's tombstone in words: "3 messages taken for spam, 1 signed waiver". */
export const removedWords = (removed: { one: string; many: string; count: number }[] = []) =>
  removed.map((entry) => count(entry.count, entry.one, entry.many)).join(', ');

/**
 * Times of consultations and blocked spans, always in the studio's zone (which the screen
 * names): `at` one moment, `span` from one to another, `day` a date, `zone` the zone's name.
 * A span from midnight to midnight is whole days: "Mon, Dec 14 (all day)", or
 * "Mon, Dec 14 – Wed, Dec 16 (all day)" (the last day included), not "12:00 AM – 12:00 AM".
 */
export function studioFormats(timeZone: string) {
  const span = (startIso: string, endIso: string) => {
    const start = new Date(startIso);
    const end = new Date(endIso);
    if (end > start && startsDay(start, timeZone) && startsDay(end, timeZone)) {
      // The last whole day is the one that ends at `end`.
      const first = shortDate(start, timeZone);
      const last = shortDate(end.getTime() - 1, timeZone);
      return `${first === last ? first : `${first} – ${last}`} (all day)`;
    }
    return shortMomentRange(start, end, timeZone);
  };
  return {
    at: (iso: string) => shortMoment(iso, timeZone),
    span,
    day: (iso: string) => shortDateYear(iso, timeZone),
    zone: zoneName(timeZone),
  };
}

export type StudioFormats = ReturnType<typeof studioFormats>;

/**
 * The moment a date (YYYY-MM-DD) and wall-clock time (HH:MM) name on the zone's clock, or null
 * while either is incomplete; on the night the clocks fall back, the first of the two. The zone's
 * offset is read from how the zone writes a moment, so the desk needs no time-zone library.
 */
export function studioMoment(date: string, time: string, timeZone: string): Date | null {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const t = /^(\d{1,2}):(\d{2})$/.exec(time);
  if (!d || !t) return null;
  const wall = Date.UTC(+d[1], +d[2] - 1, +d[3], +t[1], +t[2]);
  const written = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  const offsetAt = (ms: number) => {
    const part = (type: string) =>
      Number(written.formatToParts(ms).find((entry) => entry.type === type)?.value);
    return (
      Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute')) -
      Math.floor(ms / 60_000) * 60_000
    );
  };
  const first = wall - offsetAt(wall);
  return new Date(wall - offsetAt(first));
}
