import { expect, type Page } from '@playwright/test';
import { Temporal } from 'temporal-polyfill';
import { STUDIO_ZONE, studioToday } from '../fixtures/busy-calendar';

/** The times a session's booking page offers (its radio buttons' values). */
export async function offered(page: Page): Promise<string[]> {
  return page
    .locator('input[name="slot"]')
    .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
}

const local = (instant: string) => Temporal.Instant.from(instant).toZonedDateTimeISO(STUDIO_ZONE);

/**
 * A free time two days ahead or later, before 9:00 (no consultation window then), not on a
 * Thursday (the busy calendar's day): the `skip`-th of them, so each test takes its own.
 */
export async function freeTime(page: Page, skip: number): Promise<string> {
  const soon = studioToday().add({ days: 2 });
  const times = (await offered(page)).filter((slot) => {
    const at = local(slot);
    return (
      Temporal.PlainDate.compare(at.toPlainDate(), soon) >= 0 && at.dayOfWeek !== 4 && at.hour < 9
    );
  });
  expect(times.length).toBeGreaterThan(skip);
  return times[skip]!;
}

/** Chooses a time on a session's booking page, opening its day first. */
export async function choose(page: Page, slot: string) {
  const radio = page.locator(`input[name="slot"][value="${slot}"]`);
  const day = page.locator('details.slot-day', { has: radio });
  if (!(await day.evaluate((details) => (details as HTMLDetailsElement).open))) {
    await day.locator('summary').click();
  }
  await radio.check();
}
