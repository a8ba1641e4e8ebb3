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

for (const scripts of [false, true]) {
  test(`on a phone with scripts ${scripts ? 'on' : 'off'}, booking is on Home's first screen and on each priced card, in the words a visitor looks for`, async ({
    browser,
  }) => {
    const page = await phone(browser, scripts);
    await page.goto('/');
    const main = page.getByRole('main');
    // The spec's two buttons stay as they are; booking is beside them, above the fold.
    await expect(main.getByRole('link', { name: 'Explore Classes' })).toHaveAttribute(
      'href',
      '/services',
    );
    const online = main.getByRole('navigation', { name: 'Book online' });
    for (const [label, href] of [
      ['Book a private session', '/book/private'],
      ['Book a class', '/classes'],
      ['Book an in-home session', '/book/in-home'],
    ] as const) {
      const link = online.getByRole('link', { name: label });
      await expect(link).toHaveAttribute('href', href);
      const box = (await link.boundingBox())!;
      expect(box.y + box.height, `${label} on the first screen`).toBeLessThanOrEqual(PHONE.height);
    }
    for (const [title, label, href] of [
      ['Private Sessions', 'Book a private session', '/book/private'],
      ['Small Group Classes', 'Book a class', '/classes'],
      ['In-Home Sessions', 'Book an in-home session', '/book/in-home'],
    ] as const) {
      const card = main.locator('article', { has: page.getByRole('heading', { name: title }) });
      await expect(card.getByRole('link', { name: label })).toHaveAttribute('href', href);
      await expect(card.getByRole('link', { name: /Learn More/ })).toHaveAttribute(
        'href',
        '/services',
      );
    }
    await look(page, `home-first-screen-${scripts ? 'script' : 'no-script'}`);
    await page.screenshot({
      path: `${SHOTS}/home-first-screen-${scripts ? 'script' : 'no-script'}-375-top.png`,
    });
    await online.getByRole('link', { name: 'Book an in-home session' }).click();
    const heading = page.getByRole('heading', { level: 1 });
    await expect(heading).toHaveText('Book an In-Home Session');
    // "In-Home" is never broken after its hyphen on a phone: it stands on one line.
    const lines = await heading.evaluate((h1) => {
      const range = document.createRange();
      const text = [...h1.querySelectorAll('*'), h1]
        .flatMap((el) => [...el.childNodes])
        .find((node) => node.nodeType === Node.TEXT_NODE && node.textContent!.includes('In-Home'))!;
      const at = text.textContent!.indexOf('In-Home');
      range.setStart(text, at);
      range.setEnd(text, at + 'In-Home'.length);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    });
    expect(lines).toBe(1);
    await page.context().close();
  });
}

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
    await page
      .locator('article', { has: page.getByRole('heading', { name: 'Private Sessions' }) })
      .getByRole('link', { name: 'Book a private session' })
      .click();
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
    // With scripts the form is timed: the time trap takes anything under 3 s for a bot.
    if (scripts) await page.waitForFunction(() => performance.now() > 3_500);
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

for (const scripts of [true, false]) {
  test(`in-home with scripts ${scripts ? 'on' : 'off'} at 375 px: a ZIP code outside her areas is refused beside the field before a time is chosen, and nothing goes to another page`, async ({
    browser,
  }) => {
    const page = await phone(browser, scripts);
    const mode = scripts ? 'script' : 'no-script';
    await page.goto('/book/in-home');
    const zip = page.getByRole('textbox', { name: /ZIP code/ });
    // Where comes first, above the times.
    const first = await page.locator('input[name="slot"]').first().boundingBox();
    expect((await zip.boundingBox())!.y).toBeLessThan(first!.y);
    await zip.fill('90210');
    if (scripts) {
      // Said at once, beside the field, in her words: nothing else typed, no time chosen.
      const error = page.locator('#session-postalCode-error');
      await expect(error).toHaveText(
        /^In-home sessions are offered in the ZIP codes 97202, .+\. For another area, please write to the studio\.$/,
      );
      await expect(zip).toHaveAttribute('aria-invalid', 'true');
      await expect(zip).toHaveAttribute('aria-describedby', /session-postalCode-error/);
      await look(page, `in-home-zip-${mode}`);
      await zip.fill('97202');
      await expect(error).toBeHidden();
      // Sent without a time: said beside the times, on this same page.
      await page.getByRole('textbox', { name: /Street address/ }).fill('3520 SE Woodstock Blvd');
      await page.getByRole('textbox', { name: 'Name' }).fill('Ada Lovelace');
      await page.getByRole('textbox', { name: 'Email' }).fill(`ada.zip.${RUN}@example.test`);
      await page.getByRole('button', { name: 'Book this time' }).click();
      await expect(page.locator('[data-error-for="slot"]')).toHaveText(
        'Please choose a time for your session.',
      );
      await expect(page).toHaveURL(/\/book\/in-home$/);
      await expect(page.getByText(/Back button/)).toHaveCount(0);
      await look(page, `in-home-no-time-${mode}`);
    } else {
      // Without script the browser holds the ZIP code to her areas before anything is sent.
      expect(await zip.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(
        true,
      );
      await page.getByRole('button', { name: 'Book this time' }).click();
      await expect(page).toHaveURL(/\/book\/in-home$/);
    }
    await page.context().close();
  });
}
