/**
 * Every occurrence of one VEVENT that may touch a range: node-ical's own expansion (RRULE,
 * EXDATE, RECURRENCE-ID overrides, all-day dates, TZIDs including Windows names and VTIMEZONEs),
 * plus RDATE, which node-ical keeps as text (rdate.ts). Each comes with the component it stands
 * for (an override carries its own STATUS and TRANSP) and its span of real time.
 */
import ical, { type VEvent } from 'node-ical';
import type { Interval } from '../../shared/booking/intervals';
import { wholeDays } from '../../shared/booking/zoned.ts';
import { allDayDate } from './all-day.ts';
import type { Occurrence } from './occurrence';
import { rdateOccurrences } from './rdate.ts';

const DAY = 24 * 60 * 60 * 1000;

export function occurrences(
  event: VEvent,
  { start: from, end: to }: Interval,
  timeZone: string,
): Occurrence[] {
  // node-ical decides which all-day instances are in range by the server's own dates, and an
  // all-day date is a whole day in the studio's zone: two days of margin, trimmed by the caller.
  const range = { from: new Date(from.getTime() - 2 * DAY), to: new Date(to.getTime() + 2 * DAY) };
  const expanded = ical.expandRecurringEvent(event, { ...range, expandOngoing: true });
  return [
    ...expanded.map((instance) => ({
      span: instance.isFullDay
        ? wholeDays(allDayDate(instance.start), allDayDate(instance.end), timeZone)
        : { start: instance.start, end: instance.end },
      event: instance.event,
    })),
    ...rdateOccurrences(event, timeZone),
  ];
}
