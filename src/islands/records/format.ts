/** Dates and times as the instructor reads them, in her own time zone. */
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat('en-US', { timeStyle: 'short' });

export const when = (iso: string) => dateTime.format(new Date(iso));
export const day = (iso: string) => dateOnly.format(new Date(iso));
export const time = (iso: string) => timeOnly.format(new Date(iso));

/** "1 waiver", "3 waivers". */
export const count = (n: number, noun: string, plural = `${noun}s`) =>
  `${n} ${n === 1 ? noun : plural}`;

/** The browser's time zone, which the desk's date ranges are read in. */
export const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** A retention run's tombstone in words: "3 messages taken for spam, 1 signed waiver". */
export const removedWords = (removed: { one: string; many: string; count: number }[] = []) =>
  removed.map((entry) => count(entry.count, entry.one, entry.many)).join(', ');

/** Whether `date` is midnight, the start of a day, in `timeZone`. */
function startsDay(date: Date, timeZone: string): boolean {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(date);
  return parts.every((part) => part.type === 'literal' || Number(part.value) === 0);
}

/**
 * Times of consultations and blocked spans, always in the studio's zone (which the screen
 * names): `at` one moment, `span` from one to another, `day` a date, `zone` the zone's name.
 * A span from midnight to midnight is whole days: "Mon, Dec 14 (all day)", or
 * "Mon, Dec 14 – Wed, Dec 16 (all day)" (the last day included), not "12:00 AM – 12:00 AM".
 */
export function studioFormats(timeZone: string) {
  const at = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  const date = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    month: 'short',
    day: 'numeric',
  });
  const day = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    year: 'numeric',
  });
  const zone =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longGeneric' })
      .formatToParts(0)
      .find((part) => part.type === 'timeZoneName')?.value ?? timeZone;
  const span = (startIso: string, endIso: string) => {
    const start = new Date(startIso);
    const end = new Date(endIso);
    if (end > start && startsDay(start, timeZone) && startsDay(end, timeZone)) {
      // The last whole day is the one that ends at `end`.
      const first = date.format(start);
      const last = date.format(new Date(end.getTime() - 1));
      return `${first === last ? first : `${first} – ${last}`} (all day)`;
    }
    return at.formatRange(start, end);
  };
  return {
    at: (iso: string) => at.format(new Date(iso)),
    span,
    day: (iso: string) => day.format(new Date(iso)),
    zone,
  };
}

export type StudioFormats = ReturnType<typeof studioFormats>;
