/**
 * How the classes' times and prices read, in the studio's zone: one place for the mails and the
 * pages.
 */
import * as zoned from '../../shared/booking/zoned';

export interface When {
  /** "Tuesday, March 2, 2027" */
  date: string;
  /** "6:00 – 6:55 PM PST" */
  time: string;
  /** "Tuesday, March 2 at 6:00 PM PST" */
  short: string;
  /** "Pacific Time" */
  zone: string;
}

export function whenOf(start: Date, end: Date, timeZone: string): When {
  const from = zoned.instantOf(start);
  return {
    date: zoned.fullDateLabel(from, timeZone),
    time: zoned.timeRangeLabel(from, zoned.instantOf(end), timeZone),
    short: `${zoned.dayLabel(zoned.localDate(from, timeZone))} at ${zoned.timeLabel(from, timeZone)}`,
    zone: zoned.zoneName(timeZone),
  };
}

/** "Tuesday, March 2, 2027, 3:00 PM PST" */
export const momentOf = (at: Date, timeZone: string) =>
  zoned.momentLabel(zoned.instantOf(at), timeZone);

/** 4500 → "$45", 4250 → "$42.50". */
export function price(cents: number): string {
  return cents % 100 === 0 ? `$${cents / 100}` : `$${(cents / 100).toFixed(2)}`;
}
