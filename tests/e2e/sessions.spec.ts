import { mkdir } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import ical, { type VEvent } from 'node-ical';
import type { ReceivedMail } from '../fixtures/smtp';
import { mailbox } from './mailbox';
import { expectNoViolations } from './axe';
import { choose, freeTime, offered } from './slots';
import { looker } from './look';

/**
 * Booking a private session in Chromium against `npm start` (with a real SMTP server), from the
 * priced card on Home, at a phone's width, with scripts off and on: the page, the booking's own
 * page, the 60-minute invite with the amount due, the time gone, and the manage link cancelling
 * it within the policy. The local database outlives a run: every visitor here is new, and every
 * session booked is cancelled.
 */
const BASE = `http://127.0.0.1:${process.env.E2E_PORT ?? 8899}`;
const RUN = Date.now().toString(36);
const SHOTS = 'test-results/sessions';
const PHONE = { width: 375, height: 812 };

const smtp = mailbox();

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
});

async function phone(browser: Browser, javaScriptEnabled: boolean): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE, viewport: PHONE, javaScriptEnabled });
  return context.newPage();
}

function invite(mail: ReceivedMail) {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar');
  expect(part, `a text/calendar part in "${mail.subject}"`).toBeDefined();
  const text = part!.content.toString('utf8');
  const event = Object.values(ical.sync.parseICS(text)).find(
    (c): c is VEvent => c?.type === 'VEVENT',
  )!;
  return { method: /^METHOD:(\w+)/m.exec(text)?.[1], event };
}

const look = looker(SHOTS);

for (const [scripts, skip] of [
  [false, 0],
  [true, 1],
] as const) {
  test(`books a private session from Home with scripts ${scripts ? 'on' : 'off'} at 375 px, and cancels it through the manage link`, async ({
    browser,
  }) => {
    test.slow();
    const page = await phone(browser, scripts);
    const mode = scripts ? 'script' : 'no-script';
    await page.goto('/');
    await page.getByRole('link', { name: 'Book a Time for Private Sessions' }).click();
    await expect(page).toHaveURL(/\/book\/private$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Book a Private Session');
    await expect(page.getByText('$120, paid at the studio')).toBeVisible();
    await expect(page.getByText(/up to 24 hours before it starts/)).toBeVisible();
    // axe runs in the page: with scripts on only.
    if (scripts) await expectNoViolations(page);
    await look(page, `book-${mode}`);

    const slot = await freeTime(page, skip);
    const email = `ada.${mode}.${RUN}@example.test`;
    await choose(page, slot);
    await page.getByRole('textbox', { name: 'Name' }).fill('Ada Lovelace');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Book this time' }).click();

    await expect(page.getByRole('status')).toHaveText(/Your session is booked!/, {
      timeout: 30_000,
    });
    await expect(page).toHaveURL(/\/book\/manage\?token=[\w-]+&booked=1$/);
    await expect(page.getByText('Amount due: $120, paid at the studio')).toBeVisible();
    await look(page, `booked-${mode}`);

    const mail = await smtp.where((m) => m.envelope.to.includes(email));
    const { method, event } = invite(mail);
    expect(method).toBe('REQUEST');
    expect(event.start.toISOString()).toBe(new Date(slot).toISOString());
    expect(event.end!.getTime() - event.start.getTime()).toBe(60 * 60_000);
    expect(mail.text).toContain('Amount due: $120, paid at the studio');

    await page.goto('/book/private');
    expect(await offered(page)).not.toContain(slot);

    const link = /https?:\/\/\S+\/book\/manage\?token=[\w-]+/.exec(mail.text ?? '')![0];
    await page.goto(new URL(link).pathname + new URL(link).search);
    await page.getByRole('button', { name: 'Cancel my session' }).click();
    await expect(page.getByRole('status')).toHaveText(/Your session is cancelled/);
    await look(page, `cancelled-${mode}`);
    const cancel = await smtp.where(
      (m) => m.envelope.to.includes(email) && (m.subject ?? '').startsWith('Cancelled:'),
    );
    expect(invite(cancel)).toMatchObject({ method: 'CANCEL' });
    expect(invite(cancel).event.uid).toBe(event.uid);
    await page.context().close();
  });
}

test('the in-home page asks for the address and names the ZIP codes served; Services links to both', async ({
  browser,
}) => {
  const page = await phone(browser, true);
  await page.goto('/services');
  await page.getByRole('link', { name: 'In-Home Sessions' }).click();
  await expect(page).toHaveURL(/\/book\/in-home$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Book an In-Home Session');
  await expect(page.getByRole('textbox', { name: /Street address/ })).toBeVisible();
  await expect(page.getByRole('textbox', { name: /ZIP code/ })).toBeVisible();
  await expect(page.getByText(/In-home sessions are offered in the ZIP codes 97202/)).toBeVisible();
  await expectNoViolations(page);
  await look(page, 'book-in-home');
  await page.context().close();
});
