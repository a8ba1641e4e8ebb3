/**
 * How the classes' times and prices read, in the studio's zone: one place for the mails and the
 * pages.
 */
import * as zoned from '../../shared/booking/zoned';
import {
  dayLabel,
  fullDateLabel,
  momentLabel,
  timeLabel,
  timeRangeLabel,
  zoneName,
} from '../../shared/time-format';

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
    date: fullDateLabel(from, timeZone),
    time: timeRangeLabel(from, end, timeZone),
    short: `${dayLabel(zoned.localDate(from, timeZone))} at ${timeLabel(from, timeZone)}`,
    zone: zoneName(timeZone),
  };
}

/** "Tuesday, March 2, 2027, 3:00 PM PST" */
export const momentOf = (at: Date, timeZone: string) => momentLabel(at, timeZone);
