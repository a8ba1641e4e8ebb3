/**
 * Every date and time the site writes for people, in one module: named formatters, each in the
 * zone it is given (the studio's, from content/site.yaml; an event's own; the instructor's on
 * the desk), never the zone the process happens to run in. American English, as the site is
 * written. A moment is a `Date`, epoch milliseconds, an ISO string or a Temporal instant.
 *
 * The labels of bookings (pages, mails, the desk's answers) are tidied: newer ICU writes a
 * narrow no-break space before AM/PM and thin spaces around a range's dash, and one plain space
 * reads the same in a page, a plain-text mail and a test. The events' lines (`eventDate`,
 * `eventTimes`, `eventSpan`) keep ICU's spaces, which hold "11:00 AM" on one line.
 */

export type Moment = Date | number | string | { readonly epochMilliseconds: number };

/** A calendar day, as Temporal's PlainDate has it. */
export interface CalendarDay {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const ms = (at: Moment): number =>
  typeof at === 'number'
    ? at
    : typeof at === 'string'
      ? Date.parse(at)
      : at instanceof Date
        ? at.getTime()
        : at.epochMilliseconds;

const TIME = { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' } as const;
const FULL_DATE = { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' } as const;
const SHORT_DATE = { weekday: 'short', month: 'short', day: 'numeric' } as const;

/** The kinds of formatter, by what they write. */
const KINDS = {
  /** "9:00 AM PST" */
  time: TIME,
  /** "Sunday, March 14" */
  weekdayDate: { weekday: 'long', month: 'long', day: 'numeric' },
  /** "Monday, March 15, 2027" */
  fullDate: FULL_DATE,
  /** "June 14, 2026 at 9:00 AM PDT" as one end of a span of days */
  fullDateTime: { ...FULL_DATE, ...TIME },
  /** "09:00" */
  clock: { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
  /** "00:00:00", read in parts */
  clockSeconds: { hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' },
  /** "Pacific Time", read in parts */
  zoneName: { timeZoneName: 'longGeneric' },
  /** "Jun" */
  month: { month: 'short' },
  /** "11/22/2026", read in parts as 2026-11-22 */
  numericDate: { year: 'numeric', month: '2-digit', day: '2-digit' },
  /** "Mon, Dec 14, 9:00 AM PST" */
  shortMoment: { ...SHORT_DATE, ...TIME },
  /** "Mon, Dec 14" */
  shortDate: SHORT_DATE,
  /** "Mon, Dec 14, 2026" */
  shortDateYear: { ...SHORT_DATE, year: 'numeric' },
  /** "Dec 14, 2026, 9:00 AM" */
  medium: { dateStyle: 'medium', timeStyle: 'short' },
  /** "Dec 14, 2026" */
  mediumDate: { dateStyle: 'medium' },
  /** "9:00 AM" */
  shortTime: { timeStyle: 'short' },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

type Kind = keyof typeof KINDS;

// A formatter is costly to make and a page of slots labels hundreds of times: one per kind and
// zone, made once. `undefined` is the zone of the runtime (the instructor's browser on the desk).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(kind: Kind, timeZone: string | undefined): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone ?? ''}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { ...KINDS[kind], timeZone });
    formatters.set(key, format);
  }
  return format;
}

const tidy = (text: string) => text.replace(/[\u202f\u00a0\u2009]/g, ' ');

const write = (kind: Kind, at: Moment, timeZone: string | undefined) =>
  formatter(kind, timeZone).format(ms(at));

const span = (kind: Kind, start: Moment, end: Moment, timeZone: string | undefined) =>
  formatter(kind, timeZone).formatRange(ms(start), ms(end));

function part(kind: Kind, at: Moment, timeZone: string | undefined, type: string) {
  return formatter(kind, timeZone)
    .formatToParts(ms(at))
    .find((entry) => entry.type === type)?.value;
}

// The booking's labels: a slot, a booking's time, a mail's date line.

/** "9:00 AM PST": the zone's abbreviation tells the two 1:30 AMs of the fall-back night apart. */
export const timeLabel = (at: Moment, timeZone: string) => tidy(write('time', at, timeZone));

/** "Sunday, March 14": a calendar day, whatever the zone. */
export function dayLabel(date: CalendarDay): string {
  // The date as a UTC calendar day: no zone can move it to another day.
  return tidy(write('weekdayDate', Date.UTC(date.year, date.month - 1, date.day), 'UTC'));
}

/** "09:00": the wall-clock time in the zone, 24-hour. */
export const clockTime = (at: Moment, timeZone: string) => write('clock', at, timeZone);

/** "Monday, March 15, 2027": the date of the moment in the zone, with its year. */
export const fullDateLabel = (at: Moment, timeZone: string) =>
  tidy(write('fullDate', at, timeZone));

/** "Thursday, November 26, 2026, 10:32 AM PST": a moment on the zone's clock, its zone named. */
export const momentLabel = (at: Moment, timeZone: string) =>
  `${fullDateLabel(at, timeZone)}, ${timeLabel(at, timeZone)}`;

/** "9:00 – 9:15 AM PDT": a span within one day, on the zone's clock, its zone named. */
export const timeRangeLabel = (start: Moment, end: Moment, timeZone: string) =>
  tidy(span('time', start, end, timeZone));

/** "Pacific Time": the zone as people name it, whichever half of the year it is. */
export const zoneName = (timeZone: string) =>
  part('zoneName', 0, timeZone, 'timeZoneName') ?? timeZone;

// The events' lines, in the event's own zone, with ICU's spaces.

/** "Sunday, June 14, 2026" */
export const eventDate = (at: Moment, timeZone: string) => write('fullDate', at, timeZone);

/** "9:00 – 11:00 AM PDT" */
export const eventTimes = (start: Moment, end: Moment, timeZone: string) =>
  span('time', start, end, timeZone);

/** "June 14, 2026 at 9:00 AM PDT – June 15, 2026 at 5:00 PM PDT": an event over several days. */
export const eventSpan = (start: Moment, end: Moment, timeZone: string) =>
  span('fullDateTime', start, end, timeZone);

/** "Jun": the month of an event's day, for its calendar-leaf badge. */
export const monthBadge = (at: Moment, timeZone: string) => write('month', at, timeZone);

// The desk's.

/** "2026-11-22": the day of the moment in the zone, as a file name carries it. */
export function isoDay(at: Moment, timeZone: string): string {
  const read = (type: string) => part('numericDate', at, timeZone, type);
  return `${read('year')}-${read('month')}-${read('day')}`;
}

/** Whether the moment is midnight, the start of a day, in the zone. */
export const startsDay = (at: Moment, timeZone: string) =>
  formatter('clockSeconds', timeZone)
    .formatToParts(ms(at))
    .every((entry) => entry.type === 'literal' || Number(entry.value) === 0);

/** The zone of the runtime: the instructor's browser, which the desk's date ranges are read in. */
export const localTimeZone = () =>
  formatter('medium', undefined).resolvedOptions().timeZone || 'UTC';

/** "Dec 14, 2026, 9:00 AM", in the zone of the runtime (the instructor's own) unless one is given. */
export const mediumMoment = (at: Moment, timeZone?: string) => write('medium', at, timeZone);

/** "Dec 14, 2026" */
export const mediumDate = (at: Moment, timeZone?: string) => write('mediumDate', at, timeZone);

/** "9:00 AM" */
export const shortTime = (at: Moment, timeZone?: string) => write('shortTime', at, timeZone);

/** "Mon, Dec 14, 9:00 AM PST" */
export const shortMoment = (at: Moment, timeZone: string) => write('shortMoment', at, timeZone);

/** "Mon, Dec 14, 9:00 AM – 12:00 PM PST" */
export const shortMomentRange = (start: Moment, end: Moment, timeZone: string) =>
  span('shortMoment', start, end, timeZone);

/** "Mon, Dec 14" */
export const shortDate = (at: Moment, timeZone: string) => write('shortDate', at, timeZone);

/** "Mon, Dec 14, 2026" */
export const shortDateYear = (at: Moment, timeZone: string) => write('shortDateYear', at, timeZone);
