/**
 * The free slots as HTML a browser can use with no script at all: a group per day (a
 * `<details>`, the first days open), a radio button per slot, all named `slot` and each posting
 * its start as an ISO instant. The booking page and the manage page both put it in their forms.
 *
 * Classes only (`slot-day` and `slot`, named in the site's style sheet, src/styles/global.css,
 * so that a few hundred slots do not each spell their look out): no style attribute and no
 * script, which the pages' Content-Security-Policy would refuse.
 */
import { SLOT_CHIP, SLOT_FIELD } from '../../shared/booking/form';
import type { Slot, SlotDay } from '../../shared/booking/slots';
import { escapeHtml } from '../../shared/html';

export interface SlotListOptions {
  /** Prefixes the ids, so two lists on one page never share one. */
  idPrefix: string;
  /** Days shown open; the rest open with a tap. */
  openDays?: number;
  /** The slot chosen already (a form sent back). */
  checked?: string;
  /** What to say when there is no free slot at all (HTML, escaped by the caller). */
  empty: string;
}

/** "9:00 AM" from "09:00". */
function clock(time: string): string {
  const [hours, minutes] = time.split(':').map(Number);
  const half = hours < 12 ? 'AM' : 'PM';
  return `${hours % 12 === 0 ? 12 : hours % 12}:${String(minutes).padStart(2, '0')} ${half}`;
}

/**
 * How a slot reads on its day: "9:00 AM" (the page names the zone once), or "1:30 AM PDT" on the
 * night the clocks go back, when the same wall-clock time happens twice.
 */
function labels(slots: readonly Slot[]): string[] {
  const times = slots.map((slot) => slot.time);
  const twice = new Set(times.filter((time, at) => times.indexOf(time) !== at));
  return slots.map((slot) => (twice.has(slot.time) ? slot.label : clock(slot.time)));
}

export function slotRadio(slot: { start: string }, label: string, checked: boolean): string {
  return `<label class="${SLOT_CHIP}"><input type="radio" name="${SLOT_FIELD}" value="${escapeHtml(slot.start)}" required${checked ? ' checked' : ''}>${escapeHtml(label)}</label>`;
}

export function slotListHtml(days: readonly SlotDay[], options: SlotListOptions): string {
  const { idPrefix, openDays = 1, checked } = options;
  if (days.length === 0) {
    return `<p id="${idPrefix}-none" class="rounded-xl border border-sand-200 bg-sand-50 p-4 text-ink">${options.empty}</p>`;
  }
  const chosenDay = checked
    ? days.findIndex((day) => day.slots.some((s) => s.start === checked))
    : -1;
  const groups = days.map((day, index) => {
    const names = labels(day.slots);
    const radios = day.slots
      .map((slot, at) => slotRadio(slot, names[at], slot.start === checked))
      .join('');
    const open = index < openDays || index === chosenDay ? ' open' : '';
    const count = `${day.slots.length} ${day.slots.length === 1 ? 'time' : 'times'}`;
    const legend = `${idPrefix}-${day.date}`;
    return `<details class="slot-day"${open}><summary>${escapeHtml(day.label)}<span>${count}<svg aria-hidden="true" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M6 9l6 6 6-6"/></svg></span></summary><fieldset><legend id="${legend}" class="sr-only">${escapeHtml(day.label)}</legend>${radios}</fieldset></details>`;
  });
  return `<div id="${idPrefix}" class="space-y-2">${groups.join('')}</div>`;
}
