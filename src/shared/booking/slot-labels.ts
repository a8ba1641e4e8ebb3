import type { Slot } from './slots';

/** "9:00 AM" from "09:00". */
function clock(time: string): string {
  const [hours = 0, minutes = 0] = time.split(':').map(Number);
  const half = hours < 12 ? 'AM' : 'PM';
  return `${hours % 12 === 0 ? 12 : hours % 12}:${String(minutes).padStart(2, '0')} ${half}`;
}

/**
 * How each slot of a day reads in its list: "9:00 AM" (the page names the zone once), or
 * "1:30 AM PDT" on the night the clocks go back, when the same wall-clock time happens twice.
 */
export function slotLabels(slots: readonly Pick<Slot, 'time' | 'label'>[]): string[] {
  const times = slots.map((slot) => slot.time);
  const twice = new Set(times.filter((time, at) => times.indexOf(time) !== at));
  return slots.map((slot) => (twice.has(slot.time) ? slot.label : clock(slot.time)));
}
