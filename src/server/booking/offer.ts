/**
 * The slots offered right now, from the database: the weekly windows of content/consultation.yaml
 * less every live booking's held span, the spans blocked on the desk and the instructor's busy
 * times (busy-copy.ts). The booking page lists them; a booking or a move is checked against them
 * again when it arrives, and Postgres's exclusion constraint settles the last race.
 */
import { Temporal } from 'temporal-polyfill';
import { nearestSlots, findSlot } from '../../shared/booking/nearest';
import {
  freeSlots,
  heldSpan,
  slotRange,
  type Slot,
  type SlotDay,
} from '../../shared/booking/slots';
import { windowStarts } from '../../shared/booking/window-starts';
import * as zoned from '../../shared/booking/zoned';
import { dayLabel } from '../../shared/time-format';
import type { OfferedSlot } from '../../shared/booking/form';
import { now } from '../platform/clock';
import { busyTimes } from './busy-copy';
import { consultationSettings, type ConsultationSettings } from './consultation';
import { takenSpans, type BookedSlot } from './store';

export interface OfferOptions {
  /** The booking being moved: its own time does not stand in the way. */
  except?: string;
  /** Work for after the answer (Netlify's waitUntil): a stale calendar is read again there. */
  later?: (work: Promise<unknown>) => Promise<void> | void;
  at?: Date;
}

/** The free slots now, grouped by the studio's days. */
export async function offeredSlots(options: OfferOptions = {}): Promise<SlotDay[]> {
  const settings = consultationSettings();
  const { availability, timeZone } = settings;
  const at = options.at ?? now();
  const range = slotRange({ availability, timeZone, now: at });
  const [taken, busy] = await Promise.all([
    takenSpans(range, options.except),
    busyTimes({ range, timeZone }, options.later),
  ]);
  // Bookings are passed by what they hold as booked (their buffer then), exactly what the
  // database's constraint compares; so the page never offers a slot the database would refuse.
  return freeSlots({
    availability,
    timeZone,
    now: at,
    bookings: [],
    blocked: [...taken, ...busy],
  });
}

/** A slot as an answer offers it. */
export function offered(
  slot: Slot,
  settings: ConsultationSettings = consultationSettings(),
): OfferedSlot {
  const start = zoned.instantOf(new Date(slot.start));
  return {
    start: slot.start,
    day: dayLabel(zoned.localDate(start, settings.timeZone)),
    time: slot.label,
  };
}

export type SlotCheck =
  | { ok: true; slot: BookedSlot }
  /** A time the weekly windows could offer, but not now: taken, blocked, or too soon. */
  | { ok: false; taken: true; nearest: OfferedSlot[] }
  /** Not a time the consultation is ever offered at. */
  | { ok: false; taken: false };

/** Whether `start` (an ISO instant as posted) is offered now; else the nearest free slots. */
export async function checkSlot(start: string, options: OfferOptions = {}): Promise<SlotCheck> {
  const settings = consultationSettings();
  const days = await offeredSlots(options);
  const found = findSlot(days, start);
  if (found) return { ok: true, slot: bookedSlot(found, settings) };
  if (!onTheGrid(start, settings, options.at ?? now())) return { ok: false, taken: false };
  const nearest = nearestSlots(days, new Date(start), 3).map((slot) => offered(slot, settings));
  return { ok: false, taken: true, nearest };
}

/** The nearest free slots to `start`, now (after the database refused it). */
export async function nearestTo(start: string, options: OfferOptions = {}): Promise<OfferedSlot[]> {
  const settings = consultationSettings();
  const days = await offeredSlots(options);
  return nearestSlots(days, new Date(start), 3).map((slot) => offered(slot, settings));
}

export function bookedSlot(slot: Slot, settings: ConsultationSettings): BookedSlot {
  const start = new Date(slot.start);
  const end = new Date(slot.end);
  return { start, end, heldEnd: heldSpan({ start, end }, settings.availability).end };
}

/**
 * Whether `start` is a time the weekly windows offer, on a day up to the horizon's end: a slot
 * that was (or could have been) on the page, as against a made-up time.
 */
function onTheGrid(start: string, settings: ConsultationSettings, at: Date): boolean {
  const { availability, timeZone } = settings;
  const instant = Temporal.Instant.from(start);
  if (instant.epochMilliseconds >= slotRange({ availability, timeZone, now: at }).end.getTime()) {
    return false;
  }
  const date = zoned.localDate(instant, timeZone);
  return windowStarts(availability, date, timeZone).some((candidate) => candidate.equals(instant));
}
