/**
 * The free slots as HTML a browser can use with no script at all: a group per day (a
 * `<details>`, the first days open), a radio button per slot, all named `slot` and each posting
 * its start as an ISO instant. The booking page and the manage page both put it in their forms.
 *
 * Classes only (the site's style sheet has them: it is built from every source file, this one
 * included): no style attribute and no script, which the pages' Content-Security-Policy would
 * refuse.
 */
import { SLOT_CHIP, SLOT_FIELD, SLOT_RADIO } from '../../shared/booking/form';
import type { Slot, SlotDay } from '../../shared/booking/slots';
import { escapeHtml } from '../platform/mail';

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
  return `<label class="${SLOT_CHIP}"><input type="radio" name="${SLOT_FIELD}" value="${escapeHtml(slot.start)}" required class="${SLOT_RADIO}"${checked ? ' checked' : ''}>${escapeHtml(label)}</label>`;
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
    return `<details class="group rounded-xl border border-sand-200 bg-white"${open}><summary class="flex min-h-11 cursor-pointer list-none items-center [&::-webkit-details-marker]:hidden justify-between gap-3 rounded-xl px-4 py-2 font-semibold text-ink hover:bg-sand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sage-700"><span>${escapeHtml(day.label)}</span><span class="flex items-center gap-2 text-sm font-normal text-muted">${count}<svg aria-hidden="true" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" class="size-4 transition-transform group-open:rotate-180"><path d="M6 9l6 6 6-6"/></svg></span></summary><fieldset class="px-4 pt-1 pb-4"><legend id="${legend}" class="sr-only">${escapeHtml(day.label)}</legend><div class="flex flex-wrap gap-2">${radios}</div></fieldset></details>`;
  });
  return `<div id="${idPrefix}" class="space-y-2">${groups.join('')}</div>`;
}
