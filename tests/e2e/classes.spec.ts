import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import ical, { type VEvent } from 'node-ical';
import { mailbox } from './mailbox';
import { expectNoViolationsWithoutScript } from './axe';
import { looker } from './look';

/**
 * Booking a place in a small group class in Chromium against `npm start` (with a real SMTP
 * server), at a phone's width with scripts off and on: the places left fall, each person gets a
 * confirmation with a REQUEST invite, and the manage link cancels (the places come back). The
 * local database outlives a run: every visitor here is new, and every place taken is cancelled.
 * The waitlist's timed steps and the races are the function tests' (tests/functions/classes.test.ts).
 */
const BASE = `http://127.0.0.1:${process.env.E2E_PORT ?? 8899}`;
const RUN = Date.now().toString(36);
const PHONE = { width: 375, height: 812 };

const smtp = mailbox();

test.describe.configure({ mode: 'serial' });

async function phone(browser: Browser, javaScriptEnabled: boolean): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE, viewport: PHONE, javaScriptEnabled });
  return context.newPage();
}

const SHOTS = 'test-results/classes';

const look = looker(SHOTS);

const placesLeft = async (item: Locator) =>
  Number(await item.locator('[data-places-left]').getAttribute('data-places-left'));

/** The class (its key and start) of the first item with at least two places to book. */
async function openClass(page: Page): Promise<{ key: string; start: string }> {
  await page.goto('/classes');
  const items = page.locator('li[data-class]');
  for (let i = 0; i < (await items.count()); i++) {
    const item = items.nth(i);
    if ((await item.getByText('Book a place').count()) > 0 && (await placesLeft(item)) >= 2) {
      return {
        key: (await item.getAttribute('data-class'))!,
        start: (await item.getAttribute('data-start'))!,
      };
    }
  }
  throw new Error('no class with two places left');
}

const itemOf = (page: Page, which: { key: string; start: string }) =>
  page.locator(`li[data-class="${which.key}"][data-start="${which.start}"]`);

async function bookPlace(
  page: Page,
  which: { key: string; start: string },
  who: string,
  script: boolean,
) {
  await page.goto('/classes');
  const item = itemOf(page, which);
  await item.getByText('Book a place').click();
  await item.getByLabel('Name', { exact: true }).fill(`${who} Visitor`);
  await item.getByLabel('Email', { exact: true }).fill(`${who}-${RUN}@example.test`);
  // The plain form has no time trap; a page with scripts is as slow as a person anyway.
  if (script) await page.waitForFunction(() => performance.now() > 3_500);
  await item.getByRole('button', { name: 'Book my place' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your place is booked!');
}

test('a place booked with scripts off and on: the places left fall, the invite comes, the link cancels', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const off = await phone(browser, false);
  const which = await openClass(off);
  const before = await placesLeft(itemOf(off, which));
  await expectNoViolationsWithoutScript(browser, off);

  await bookPlace(off, which, 'ada', false);
  await off.goto('/classes');
  expect(await placesLeft(itemOf(off, which))).toBe(before - 1);

  const on = await phone(browser, true);
  await bookPlace(on, which, 'ben', true);
  await on.goto('/classes');
  expect(await placesLeft(itemOf(on, which))).toBe(before - 2);

  for (const who of ['ada', 'ben']) {
    const mail = await smtp.where(
      (m) =>
        m.envelope.to.includes(`${who}-${RUN}@example.test`) && /^Your place/.test(m.subject ?? ''),
    );
    expect(mail.text).toContain('Due at the studio: $45');
    expect(mail.text).not.toContain(who === 'ada' ? 'ben-' : 'ada-');
    const part = mail.attachments.find((a) => a.contentType === 'text/calendar')!;
    const event = Object.values(ical.sync.parseICS(part.content.toString('utf8'))).find(
      (c): c is VEvent => c?.type === 'VEVENT',
    )!;
    expect(new Date(event.start).toISOString()).toBe(which.start);
    const link = /https?:\/\/\S+\/classes\/manage\?token=[\w-]+/.exec(mail.text ?? '')![0];
    const path = new URL(link).pathname + new URL(link).search;
    await off.goto(path);
    if (who === 'ada') {
      await look(off, 'manage-noscript');
      await expectNoViolationsWithoutScript(browser, off);
      await on.goto(path);
      await expect(on.getByRole('heading', { level: 1 })).toHaveText('Your place');
      await look(on, 'manage-script');
    }
    await off.getByText('Cancel my place…').click();
    await off.getByRole('button', { name: 'Yes, cancel my place' }).click();
    await expect(off.getByRole('heading', { level: 1 })).toHaveText('Your place is cancelled');
    if (who === 'ada') await look(off, 'cancelled-noscript');
  }
  // A claim link that opens nothing (mistyped, cut short): a 404 page saying so.
  for (const [page, mode] of [
    [off, 'noscript'],
    [on, 'script'],
  ] as const) {
    const answer = await page.goto(`/classes/claim?token=${'x'.repeat(43)}`);
    expect(answer!.status()).toBe(404);
    expect(answer!.headers()['cache-control']).toBe('no-store');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(
      'This link does not open an offer',
    );
    await look(page, `claim-unknown-${mode}`);
  }
  await off.goto('/classes');
  expect(await placesLeft(itemOf(off, which))).toBe(before);
});
