/**
 * When the slot a visitor chose was taken between loading the page and sending the form, the
 * answer offers the free slots nearest to it instead of sending them back to the start.
 */
import type { Slot, SlotDay } from './slots';

export function nearestSlots(days: readonly SlotDay[], wanted: Date, count = 3): Slot[] {
  const at = wanted.getTime();
  const distance = (slot: Slot) => Math.abs(Date.parse(slot.start) - at);
  const byStart = (a: Slot, b: Slot) => Date.parse(a.start) - Date.parse(b.start);
  return days
    .flatMap((day) => day.slots)
    .sort((a, b) => distance(a) - distance(b) || byStart(a, b))
    .slice(0, count)
    .sort(byStart);
}

/** The free slot starting exactly at `start` (an ISO instant as posted), if it is still free. */
export function findSlot(days: readonly SlotDay[], start: string): Slot | undefined {
  const at = Date.parse(start);
  if (Number.isNaN(at)) return undefined;
  return days.flatMap((day) => day.slots).find((slot) => Date.parse(slot.start) === at);
}
