/**
 * The dates of the weekly timetable: every class of content/classes.yaml on each of its days, in
 * the studio's zone (a class at 18:00 is at 18:00 on both sides of a change of the clocks), with
 * the length, places, minimum and price it has in content. Pure: no database, no clock.
 */
import { Temporal } from 'temporal-polyfill';
import { WEEKDAYS } from '../../shared/content-fields';
import { classKey } from '../../shared/classes/timetable';
import * as zoned from '../../shared/booking/zoned';
import { centsOf, type ClassSettings } from './settings';

export interface ClassOccurrence {
  /** The timetable class it is a date of (`mat-foundations-tu-1800`). */
  key: string;
  title: string;
  start: Date;
  end: Date;
  capacity: number;
  minimum: number;
  priceCents: number;
}

/** The timetable's dates starting in [from, to), by start. */
export function timetableOccurrences(
  { timetable, defaultPriceCents, timeZone }: ClassSettings,
  from: Date,
  to: Date,
): ClassOccurrence[] {
  const found: ClassOccurrence[] = [];
  const last = zoned.localDate(zoned.instantOf(to), timeZone);
  for (
    let date = zoned.localDate(zoned.instantOf(from), timeZone);
    Temporal.PlainDate.compare(date, last) <= 0;
    date = date.add({ days: 1 })
  ) {
    const day = WEEKDAYS[date.dayOfWeek - 1];
    for (const entry of timetable.classes) {
      if (!entry.days.includes(day)) continue;
      const start = zoned.dateOf(zoned.instantAt(date, entry.time, timeZone));
      if (start < from || start >= to) continue;
      found.push({
        key: classKey(entry, day),
        title: entry.name,
        start,
        end: new Date(start.getTime() + entry.lengthMinutes * 60_000),
        capacity: entry.capacity ?? timetable.capacity,
        minimum: entry.minimum ?? timetable.minimum,
        priceCents: entry.price === undefined ? defaultPriceCents : centsOf(entry.price),
      });
    }
  }
  return found.sort((a, b) => a.start.getTime() - b.start.getTime());
}

/** The timetable's date of class `key` starting at `start`, if the timetable has one. */
export function occurrenceAt(
  settings: ClassSettings,
  key: string,
  start: Date,
): ClassOccurrence | undefined {
  const day = new Date(start.getTime() - 86_400_000);
  return timetableOccurrences(settings, day, new Date(start.getTime() + 1)).find(
    (occurrence) => occurrence.key === key && occurrence.start.getTime() === start.getTime(),
  );
}

/** When a class's cutoff is: no waitlist offers from then on; below its minimum, cancelled. */
export const cutoffOf = (start: Date, settings: ClassSettings) =>
  new Date(start.getTime() - settings.timetable.cutoffHours * 3_600_000);

/** How long a waitlist offer holds a freed place. */
export const holdMsOf = (settings: ClassSettings) =>
  Math.round(settings.timetable.claimHoldHours * 3_600_000);

/** The end of the weeks visitors can book: `weeksAhead` weeks from `now`. */
export const horizonOf = (now: Date, settings: ClassSettings) =>
  new Date(now.getTime() + settings.timetable.weeksAhead * 7 * 86_400_000);
