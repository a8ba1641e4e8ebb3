import { Temporal } from 'temporal-polyfill';

/**
 * The calendar date of an all-day value as node-ical gives it: midnight of that date in the zone
 * the server runs in, so the server's own calendar fields read back the date the feed wrote.
 */
export function allDayDate(date: Date): Temporal.PlainDate {
  return Temporal.PlainDate.from({
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
  });
}
