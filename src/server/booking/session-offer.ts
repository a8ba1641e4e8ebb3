/**
 * The free times of a private or in-home session right now: her session hours
 * (content/booking.yaml) for a session of its length, less what every live booking of every kind
 * holds (consultations included), the spans blocked on the desk and her busy calendar, through
 * the consultation's engine (src/shared/booking/slots.ts: notice, horizon, buffer, the days clocks
 * change). A session at the visitor's address keeps its travel time free before and after: it
 * holds [start - travel, end + buffer + travel), and a time is offered only when all of that is
 * free. The booking page lists them; a booking or a move is checked against them again, and
 * Postgres's exclusion constraint (held_time) settles the last race.
 */
import { Temporal } from 'temporal-polyfill';
import type { OfferedSlot } from '../../shared/booking/form';
import type { Interval } from '../../shared/booking/intervals';
import { findSlot, nearestSlots } from '../../shared/booking/nearest';
import { freeSlots, slotRange, type Slot, type SlotDay } from '../../shared/booking/slots';
import { windowStarts } from '../../shared/booking/window-starts';
import * as zoned from '../../shared/booking/zoned';
import { dayLabel } from '../../shared/time-format';
import { now } from '../platform/clock';
import { busyTimes } from './busy-copy';
import { sessionPolicy, type SessionType } from './policy';
import { heldSpans, type SessionSlot } from './session-store';

const MINUTE = 60_000;

export interface SessionOfferOptions {
  /** The session being moved: its own time does not stand in the way. */
  except?: string;
  /** Work for after the answer (Netlify's waitUntil): a stale calendar is read again there. */
  later?: (work: Promise<unknown>) => Promise<void> | void;
  at?: Date;
}

/** The engine's availability for `type`: its length, and its travel after as part of the buffer. */
function availabilityOf(type: SessionType) {
  return {
    ...type.availability,
    bufferMinutes: type.availability.bufferMinutes + type.travelMinutes,
  };
}

/** The free times of `type` now, grouped by the studio's days. */
export async function sessionSlots(
  type: SessionType,
  options: SessionOfferOptions = {},
): Promise<SlotDay[]> {
  const { timeZone } = sessionPolicy();
  const at = options.at ?? now();
  const availability = availabilityOf(type);
  const range = slotRange({ availability, timeZone, now: at });
  const travel = type.travelMinutes * MINUTE;
  // Taken spans are read a travel time wider at the start, since a session there keeps it free.
  const wide: Interval = { start: new Date(range.start.getTime() - travel), end: range.end };
  const [taken, busy] = await Promise.all([
    heldSpans(wide, { session: options.except }),
    busyTimes({ range: wide, timeZone }, options.later),
  ]);
  // A time is free when [start - travel, end + buffer + travel) touches nothing taken: the
  // engine checks [start, end + buffer + travel), so each taken span reaches travel further.
  const blocked = [...taken, ...busy].map((span) => ({
    start: span.start,
    end: new Date(span.end.getTime() + travel),
  }));
  return freeSlots({ availability, timeZone, now: at, bookings: [], blocked });
}

/** What a session at `slot` holds of her time. */
export function sessionSlotOf(type: SessionType, slot: Slot): SessionSlot {
  const start = new Date(slot.start);
  const end = new Date(slot.end);
  const travel = type.travelMinutes * MINUTE;
  const after = (type.availability.bufferMinutes + type.travelMinutes) * MINUTE;
  return {
    start,
    end,
    heldStart: new Date(start.getTime() - travel),
    heldEnd: new Date(end.getTime() + after),
  };
}

/** A slot as an answer offers it. */
export function offeredSession(slot: Slot): OfferedSlot {
  const { timeZone } = sessionPolicy();
  const start = zoned.instantOf(new Date(slot.start));
  return {
    start: slot.start,
    day: dayLabel(zoned.localDate(start, timeZone)),
    time: slot.label,
  };
}

export type SessionSlotCheck =
  | { ok: true; slot: SessionSlot }
  /** A time her session hours could offer, but not now: taken, blocked, busy, or too soon. */
  | { ok: false; taken: true; nearest: OfferedSlot[] }
  /** Not a time this session is ever offered at. */
  | { ok: false; taken: false };

/** Whether `start` (an ISO instant as posted) is offered for `type` now; else the nearest. */
export async function checkSessionSlot(
  type: SessionType,
  start: string,
  options: SessionOfferOptions = {},
): Promise<SessionSlotCheck> {
  const days = await sessionSlots(type, options);
  const found = findSlot(days, start);
  if (found) return { ok: true, slot: sessionSlotOf(type, found) };
  if (!onTheGrid(type, start, options.at ?? now())) return { ok: false, taken: false };
  return {
    ok: false,
    taken: true,
    nearest: nearestSlots(days, new Date(start), 3).map(offeredSession),
  };
}

/** The nearest free times of `type` to `start`, now (after the database refused it). */
export async function nearestSessions(
  type: SessionType,
  start: string,
  options: SessionOfferOptions = {},
): Promise<OfferedSlot[]> {
  const days = await sessionSlots(type, options);
  return nearestSlots(days, new Date(start), 3).map(offeredSession);
}

/** Whether `start` is a time her session hours offer `type` at, up to the horizon's end. */
function onTheGrid(type: SessionType, start: string, at: Date): boolean {
  const { timeZone } = sessionPolicy();
  const availability = availabilityOf(type);
  const instant = Temporal.Instant.from(start);
  if (instant.epochMilliseconds >= slotRange({ availability, timeZone, now: at }).end.getTime()) {
    return false;
  }
  const date = zoned.localDate(instant, timeZone);
  return windowStarts(availability, date, timeZone).some((candidate) => candidate.equals(instant));
}
