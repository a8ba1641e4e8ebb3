/**
 * The free consultation slots: the weekly windows of the availability, in the studio's zone,
 * from `now` + notice through the horizon's last day, less everything already taken. Pure: the
 * caller passes `now` and every taken span, so the same inputs always give the same slots.
 *
 * A slot is free when [start, end + buffer) touches nothing taken, and a booking holds
 * [start, end + buffer) (`heldSpan`), so two bookings are always a buffer apart, whichever came
 * first. Windows are wall-clock times but slots step in real time from a window's start: on the
 * spring-forward night a window loses the skipped hour (no slot is labelled with a time that does
 * not exist); on the fall-back night it gains the repeated hour, whose slots say which they are
 * (1:30 AM PDT, then 1:30 AM PST).
 */
import { Temporal } from 'temporal-polyfill';
import type { Availability } from './availability';
import { overlaps, type Interval } from './intervals';
import { windowStarts } from './window-starts';
import * as zoned from './zoned';
import { clockTime, dayLabel, timeLabel } from '../time-format';

export interface Slot {
  /** Exact instants in UTC, ISO 8601 ("2027-03-15T16:00:00Z"): what a form posts back. */
  start: string;
  end: string;
  /** The studio's wall clock, 24-hour ("09:00"), and the label people read ("9:00 AM PDT"). */
  time: string;
  label: string;
}

export interface SlotDay {
  /** The studio's calendar date ("2027-03-15") and how it reads ("Monday, March 15"). */
  date: string;
  label: string;
  slots: Slot[];
}

export interface SlotQuery {
  availability: Availability;
  timeZone: string;
  now: Date;
  /** The consultations already booked, each [start, end) as booked: their buffer is added here. */
  bookings: readonly Interval[];
  /** Spans blocked on the desk and busy times from the instructor's calendar, as they are. */
  blocked?: readonly Interval[];
}

const MINUTE = 60_000;

/** "2027-03-15T16:00:00Z", as Temporal writes a whole-second instant (what a form posts back). */
const instantText = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** What a booking holds once made: itself and the buffer after it. */
export function heldSpan(booking: Interval, availability: Availability): Interval {
  const end = booking.end.getTime() + availability.bufferMinutes * MINUTE;
  return { start: booking.start, end: new Date(end) };
}

/** Where slots may lie: from now + notice to the midnight that ends the horizon's last day. */
export function slotRange(query: Pick<SlotQuery, 'availability' | 'timeZone' | 'now'>): Interval {
  const { availability, timeZone, now } = query;
  const today = zoned.localDate(zoned.instantOf(now), timeZone);
  const after = today.add({ days: availability.horizonDays + 1 });
  const start = new Date(now.getTime() + availability.noticeHours * 60 * MINUTE);
  return { start, end: zoned.dateOf(zoned.startOfDay(after, timeZone)) };
}

export function freeSlots(query: SlotQuery): SlotDay[] {
  const { availability, timeZone } = query;
  const range = slotRange(query);
  const taken = [...query.bookings.map((b) => heldSpan(b, availability)), ...(query.blocked ?? [])];
  // In milliseconds: a few hundred candidates, each checked against everything taken.
  const holdMs = (availability.lengthMinutes + availability.bufferMinutes) * MINUTE;
  const isFree = (from: number) => {
    const span = { start: new Date(from), end: new Date(from + holdMs) };
    return from >= range.start.getTime() && !taken.some((other) => overlaps(span, other));
  };
  const days: SlotDay[] = [];
  const first = zoned.localDate(zoned.instantOf(query.now), timeZone);
  const kept = keptDays(availability);
  for (let day = 0; day <= availability.horizonDays; day += 1) {
    const date = first.add({ days: day });
    const { label, slots: all } = dayOf(kept, availability, date, timeZone);
    const slots = all.filter((slot) => isFree(slot.from)).map((slot) => ({ ...slot.slot }));
    if (slots.length > 0) days.push({ date: date.toString(), label, slots });
  }
  return days;
}

interface DayOfSlots {
  label: string;
  slots: { from: number; slot: Slot }[];
}

/**
 * Every slot the weekly windows give on `date`, free or not, with its labels. It depends on the
 * availability, the zone and the date alone, so it is kept (for the availability as it reads
 * now; the settings are read once per instance): the zone arithmetic and the labels were most of
 * a request's time, for the same answer every time. At most a few horizons of days are kept.
 */
const daysKept = new WeakMap<Availability, { as: string; days: Map<string, DayOfSlots> }>();
const DAYS_KEPT = 200;

/** The days kept for `availability` as it reads now (checked once per `freeSlots` call). */
function keptDays(availability: Availability): Map<string, DayOfSlots> {
  const as = JSON.stringify(availability);
  let kept = daysKept.get(availability);
  if (kept?.as !== as) daysKept.set(availability, (kept = { as, days: new Map() }));
  return kept.days;
}

function dayOf(
  kept: Map<string, DayOfSlots>,
  availability: Availability,
  date: Temporal.PlainDate,
  timeZone: string,
): DayOfSlots {
  const key = `${timeZone} ${date.toString()}`;
  let day = kept.get(key);
  if (!day) {
    if (kept.size >= DAYS_KEPT) kept.clear();
    const slots = windowStarts(availability, date, timeZone).map((start) => {
      const from = start.epochMilliseconds;
      const end = from + availability.lengthMinutes * MINUTE;
      const time = clockTime(start, timeZone);
      const label = timeLabel(start, timeZone);
      return { from, slot: { start: instantText(from), end: instantText(end), time, label } };
    });
    day = { label: dayLabel(date), slots };
    kept.set(key, day);
  }
  return day;
}
