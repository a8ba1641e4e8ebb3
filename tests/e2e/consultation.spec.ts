import { mkdir } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import ical, { type VEvent } from 'node-ical';
import { Temporal } from 'temporal-polyfill';
import { fullDateLabel, timeRangeLabel } from '../../src/shared/time-format';
import { busyThursdays, STUDIO_ZONE, studioToday } from '../fixtures/busy-calendar';
import type { ReceivedMail } from '../fixtures/smtp';
import { mailbox } from './mailbox';
import { expectNoViolations, expectNoViolationsWithoutScript, smallTargets } from './axe';
import { hydrate, island } from './islands';
import { looker } from './look';

/**
 * Booking the free consultation in Chromium against `npm start` (with a real SMTP server, and the
 * instructor's calendar served by tests/fixtures/busy-calendar-server.ts), at a phone's width,
 * with scripts on and off; then the manage link, the desk, and the busy calendar. The local
 * database outlives a run: every visitor here is new, and every booking made is cancelled.
 */
const BASE = `http://127.0.0.1:${process.env.E2E_PORT ?? 8899}`;
const STAFF = 'maya@example.test';
const STUDIO_INBOX = 'studio-inbox@example.test';
const RUN = Date.now().toString(36);
const SHOTS = 'test-results/consultation';
const PHONE = { width: 375, height: 812 };

const smtp = mailbox();

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
});

async function phone(browser: Browser, javaScriptEnabled = true): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE, viewport: PHONE, javaScriptEnabled });
  return context.newPage();
}

/** The slots the page offers, as posted (ISO instants). */
async function offered(page: Page): Promise<string[]> {
  return page
    .locator('input[name="slot"]')
    .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
}

const local = (instant: string) => Temporal.Instant.from(instant).toZonedDateTimeISO(STUDIO_ZONE);

/**
 * A free slot from two days ahead on, not on a Thursday (the busy calendar's day), in the
 * afternoon window, the `skip`-th of them: each test takes its own.
 */
async function freeSlot(page: Page, skip: number): Promise<string> {
  const soon = studioToday().add({ days: 2 });
  const slots = (await offered(page)).filter((slot) => {
    const at = local(slot);
    return (
      Temporal.PlainDate.compare(at.toPlainDate(), soon) >= 0 && at.dayOfWeek !== 4 && at.hour >= 15
    );
  });
  expect(slots.length).toBeGreaterThan(skip);
  return slots[skip]!;
}

/** Chooses a slot as a visitor does: opens its day, then presses the time. */
async function choose(page: Page, slot: string) {
  const radio = page.locator(`input[name="slot"][value="${slot}"]`);
  const day = page.locator('details.slot-day', { has: radio });
  if (!(await day.evaluate((details) => (details as HTMLDetailsElement).open))) {
    await day.locator('summary').click();
  }
  await radio.check();
}

function invite(mail: ReceivedMail) {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar');
  expect(part, `a text/calendar part in "${mail.subject}"`).toBeDefined();
  const method = (part!.headers.get('content-type') as { params?: { method?: string } })?.params
    ?.method;
  const event = Object.values(ical.sync.parseICS(part!.content.toString('utf8'))).find(
    (c): c is VEvent => c?.type === 'VEVENT',
  )!;
  return { method, event };
}

const manageLink = (mail: ReceivedMail) =>
  /https?:\/\/\S+\/consultation\/manage\?token=[\w-]+/.exec(mail.text ?? '')![0];

/** People take seconds to fill in a form; the time trap takes anything faster for a bot. */
async function pastTimeTrap(page: Page) {
  await page.waitForFunction(() => performance.now() > 3_500);
}

const look = looker(SHOTS);

/** A mail as a reader sees it, at both widths, for looking at. */
async function lookAtMail(browser: Browser, mail: ReceivedMail, name: string) {
  const page = await browser.newPage({ javaScriptEnabled: false });
  await page.setContent(String(mail.html));
  await look(page, `mail-${name}`);
  await page.close();
}

const bookedVisitors: string[] = [];

test('the page loads no script until touched, names the studio’s time zone, and passes axe at 375 px', async ({
  browser,
}) => {
  const page = await phone(browser);
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url());
  });
  await page.goto('/consultation');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Book Your Free Consultation');
  await expect(page.getByText(/^Times are Pacific Time, the studio's time zone/)).toBeVisible();
  expect((await offered(page)).length).toBeGreaterThan(20);
  expect(scripts).toEqual([]);
  await expectNoViolations(page);
  expect(await smallTargets(page)).toEqual([]);
  await look(page, 'page');
  await page.context().close();
});

test('books a slot with scripts on at 375 px: the confirmation, the invite read back at the right instant, and the slot gone', async ({
  browser,
}) => {
  test.slow();
  const page = await phone(browser);
  await page.goto('/consultation');
  const slot = await freeSlot(page, 0);
  const email = `grace.${RUN}@example.test`;
  const name = page.getByRole('textbox', { name: 'Name' });
  await hydrate(page, 'BookingForm', name);
  await choose(page, slot);
  await name.fill('Grace Hopper');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page
    .getByRole('textbox', { name: /What would you like to talk about/ })
    .fill('Stiff shoulders');
  await pastTimeTrap(page);
  await page.getByRole('button', { name: 'Book Consultation' }).click();

  await expect(page.getByRole('heading', { name: 'Your consultation is booked!' })).toBeVisible({
    timeout: 30_000,
  });
  const start = Temporal.Instant.from(slot);
  const status = page.getByRole('status').filter({ hasText: 'Your consultation is booked!' });
  await expect(status).toContainText(fullDateLabel(start, STUDIO_ZONE));
  await expect(status).toContainText(
    timeRangeLabel(start, start.add({ minutes: 15 }), STUDIO_ZONE),
  );
  await look(page, 'booked-script');

  const mail = await smtp.where((m) => m.envelope.to.includes(email));
  const { method, event } = invite(mail);
  expect(method).toBe('REQUEST');
  expect(event.start.toISOString()).toBe(new Date(slot).toISOString());
  expect(Number(event.sequence)).toBe(0);
  expect(mail.text).not.toContain('Stiff shoulders');
  await lookAtMail(browser, mail, 'confirmation');
  const studio = await smtp.where(
    (m) =>
      m.envelope.to.includes(STUDIO_INBOX) &&
      (m.subject ?? '').startsWith('Consultation booked: Grace Hopper'),
  );
  expect(invite(studio).event.uid).toBe(event.uid);
  await lookAtMail(browser, studio, 'studio-invite');

  await page.goto('/consultation');
  expect(await offered(page)).not.toContain(slot);
  bookedVisitors.push(manageLink(mail));
  await page.context().close();
});

test('books a slot with scripts off at 375 px: a plain form post lands on the booking’s own page', async ({
  browser,
}) => {
  test.slow();
  const page = await phone(browser, false);
  await page.goto('/consultation');
  await look(page, 'page-noscript');
  const slot = await freeSlot(page, 1);
  const email = `alan.${RUN}@example.test`;
  await choose(page, slot);
  await page.getByRole('textbox', { name: 'Name' }).fill('Alan Turing');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('button', { name: 'Book Consultation' }).click();

  await expect(page).toHaveURL(/\/consultation\/manage\?token=[\w-]+&booked=1$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your consultation is booked!');
  await look(page, 'booked-noscript');
  const mail = await smtp.where((m) => m.envelope.to.includes(email));
  expect(invite(mail).event.start.toISOString()).toBe(new Date(slot).toISOString());
  await page.goto('/consultation');
  expect(await offered(page)).not.toContain(slot);
  bookedVisitors.push(manageLink(mail));
  await page.context().close();
});

test('a slot taken between loading and sending: the nearest free ones are offered, and what was typed stays', async ({
  browser,
  request,
}) => {
  const page = await phone(browser);
  await page.goto('/consultation');
  const slot = await freeSlot(page, 2);
  const name = page.getByRole('textbox', { name: 'Name' });
  await hydrate(page, 'BookingForm', name);
  await choose(page, slot);
  await name.fill('Ada Lovelace');
  await page.getByRole('textbox', { name: 'Email' }).fill(`ada.${RUN}@example.test`);

  // Someone else books it meanwhile.
  const other = await request.post('/api/consultation/book', {
    headers: { origin: BASE },
    data: {
      slot,
      name: 'Quick Visitor',
      email: `quick.${RUN}@example.test`,
      website: '',
      fillTimeMs: 9_000,
    },
  });
  expect(other.status()).toBe(200);
  const otherManage = ((await other.json()) as { booking: { manage: string } }).booking.manage;

  await pastTimeTrap(page);
  await page.getByRole('button', { name: 'Book Consultation' }).click();
  await expect(page.getByText('That time has just been taken', { exact: true })).toBeVisible();
  await expect(page.locator(`input[name="slot"][value="${slot}"]`)).toBeDisabled();
  await expect(name).toHaveValue('Ada Lovelace');
  await look(page, 'taken');
  await page.context().close();

  // Cancelled again, so the local database's slots stay free for the next run.
  const manage = await request.get(otherManage);
  expect(manage.status()).toBe(200);
  bookedVisitors.push(`${BASE}${otherManage}`);
});

test('with scripts off, a slot taken meanwhile: the page offers the nearest free ones, keeps what was typed, and books one', async ({
  browser,
  request,
}) => {
  test.slow();
  const page = await phone(browser, false);
  await page.goto('/consultation');
  const slot = await freeSlot(page, 3);
  const email = `ida.${RUN}@example.test`;
  await choose(page, slot);
  await page.getByRole('textbox', { name: 'Name' }).fill('Ida <b>Rhodes</b>');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);

  const other = await request.post('/api/consultation/book', {
    headers: { origin: BASE },
    data: {
      slot,
      name: 'Quick Visitor',
      email: `quick2.${RUN}@example.test`,
      website: '',
      fillTimeMs: 9_000,
    },
  });
  expect(other.status()).toBe(200);
  bookedVisitors.push(
    `${BASE}${((await other.json()) as { booking: { manage: string } }).booking.manage}`,
  );

  await page.getByRole('button', { name: 'Book Consultation' }).click();
  await expect(page).toHaveURL(/\/consultation\/taken$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('That time has just been taken');
  const nearest = page.locator('input[name="slot"]');
  expect(await nearest.count()).toBeGreaterThan(0);
  expect(await page.locator('input[name="name"]').getAttribute('value')).toBe('Ida <b>Rhodes</b>');
  await look(page, 'taken-noscript');
  await expectNoViolationsWithoutScript(browser, page);

  // The same page with scripts on (a form sent again to it by the browser).
  const scripted = await phone(browser, true);
  await scripted.goto('/consultation');
  await scripted.evaluate(
    ({ slot, email }) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/consultation/taken';
      for (const [name, value] of Object.entries({ slot, name: 'Ida Rhodes', email })) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    },
    { slot, email },
  );
  await expect(scripted.getByRole('heading', { level: 1 })).toHaveText(
    'That time has just been taken',
  );
  await look(scripted, 'taken-script');
  await scripted.context().close();

  const chosen = (await nearest.first().getAttribute('value'))!;
  await nearest.first().check();
  await page.getByRole('button', { name: 'Book this time' }).click();
  await expect(page).toHaveURL(/\/consultation\/manage\?token=[\w-]+&booked=1$/);
  const mail = await smtp.where((m) => m.envelope.to.includes(email));
  expect(invite(mail).event.start.toISOString()).toBe(new Date(chosen).toISOString());
  bookedVisitors.push(manageLink(mail));
  await page.context().close();
});

test('a post a booking’s page refuses (here one it cannot read) answers the site’s refusal page, with scripts off and on', async ({
  browser,
}) => {
  for (const javaScriptEnabled of [false, true]) {
    const page = await phone(browser, javaScriptEnabled);
    await page.goto('/consultation');
    // A form the page cannot read (text/plain), posted from the site's own page.
    await page.setContent(
      `<form method="post" action="${BASE}/consultation/manage" enctype="text/plain"><input type="hidden" name="token" value="x"><button>Send</button></form>`,
    );
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/consultation/manage')),
      page.getByRole('button', { name: 'Send' }).click(),
    ]);
    expect([403, 415]).toContain(answer.status());
    expect(answer.headers()['cache-control']).toBe('no-store');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(
      'The consultation could not be booked',
    );
    await expect(page.getByRole('link', { name: 'Return to the free times' })).toBeVisible();
    await look(page, `refused-${javaScriptEnabled ? 'script' : 'noscript'}`);
    await page.context().close();
  }
});

test('the manage link: a GET (a mail scanner) changes nothing; the page moves the booking (a new REQUEST) and cancels it (METHOD:CANCEL), the same UID and a higher SEQUENCE each time', async ({
  browser,
  request,
}) => {
  test.slow();
  const link = bookedVisitors.shift()!;
  expect((await request.get(link)).status()).toBe(200);
  expect((await request.get(link)).status()).toBe(200);
  const page = await phone(browser);
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your consultation');
  await expect(page.getByRole('button', { name: 'Cancel my consultation' })).toBeVisible();
  await look(page, 'manage');
  const token = new URL(link).searchParams.get('token')!;
  const booked = smtp.mails.find((m) => m.text?.includes(token))!;
  const visitor = booked.envelope.to[0]!;
  const original = invite(booked).event;

  // Choose another time: the first free one of the second day offered.
  const secondDay = page.locator('#move-slots details.slot-day').nth(1);
  await secondDay.locator('summary').click();
  const target = secondDay.locator('input[name="slot"]').first();
  const movedTo = await target.inputValue();
  await target.check();
  await page.getByRole('button', { name: 'Move my consultation' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your consultation has moved');
  await look(page, 'moved');
  const moved = await smtp.where(
    (m) =>
      m.envelope.to.includes(visitor) &&
      (m.subject ?? '').startsWith('Your consultation has moved'),
  );
  const update = invite(moved);
  expect(update.method).toBe('REQUEST');
  expect(update.event.uid).toBe(original.uid);
  expect(update.event.start.toISOString()).toBe(new Date(movedTo).toISOString());
  expect(Number(update.event.sequence)).toBeGreaterThan(Number(original.sequence));
  await lookAtMail(browser, moved, 'moved');

  const before = smtp.mails.length;
  await page.getByRole('button', { name: 'Cancel my consultation' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    'Your consultation is cancelled',
  );
  await look(page, 'cancelled');
  await expect
    .poll(() => smtp.mails.length, { timeout: 20_000 })
    .toBeGreaterThanOrEqual(before + 2);
  const cancellations = smtp.mails
    .slice(before)
    .filter((m) => (m.subject ?? '').toLowerCase().includes('cancelled'));
  expect(cancellations.map((m) => m.envelope.to[0]).sort()).toEqual([visitor, STUDIO_INBOX].sort());
  for (const mail of cancellations) {
    const { method, event } = invite(mail);
    expect(method).toBe('CANCEL');
    expect(event.uid).toBe(original.uid);
    expect(Number(event.sequence)).toBeGreaterThan(Number(update.event.sequence));
  }
  await lookAtMail(
    browser,
    cancellations.find((m) => m.envelope.to[0] !== STUDIO_INBOX)!,
    'cancellation',
  );
  await lookAtMail(
    browser,
    cancellations.find((m) => m.envelope.to[0] === STUDIO_INBOX)!,
    'studio-cancellation',
  );
  // Both times it held are free again.
  await page.goto('/consultation');
  const free = await offered(page);
  expect(free).toContain(original.start.toISOString().replace('.000Z', 'Z'));
  expect(free).toContain(movedTo);
  await page.context().close();
});

test('the instructor cancels from the desk: the visitor gets METHOD:CANCEL with the same UID and a higher SEQUENCE', async ({
  browser,
}) => {
  test.slow();
  const link = bookedVisitors.shift()!;
  const token = new URL(link).searchParams.get('token')!;
  const booked = smtp.mails.find((m) => m.text?.includes(token))!;
  const original = invite(booked).event;

  const context = await browser.newContext({
    baseURL: BASE,
    viewport: { width: 1280, height: 900 },
  });
  const desk = await context.newPage();
  const before = smtp.mails.length;
  await desk.goto('/records');
  await desk.getByRole('textbox', { name: 'Email' }).fill(STAFF);
  await desk.getByRole('button', { name: 'Email me a sign-in link' }).click();
  const signIn = await smtp.where(
    (m) => m.envelope.to.includes(STAFF) && smtp.mails.indexOf(m) >= before,
  );
  await desk.goto(/https?:\/\/\S+\/records\/sign-in#token=[\w-]+/.exec(signIn.text ?? '')![0]);
  await desk.getByRole('button', { name: 'Sign in' }).click();
  await desk
    .getByRole('navigation', { name: 'Records desk' })
    .getByRole('link', { name: 'Consultations' })
    .click();
  await expect(desk.getByRole('heading', { level: 2, name: 'Consultations' })).toBeVisible();
  const card = desk.getByRole('article').filter({ hasText: booked.envelope.to[0] });
  await expect(card).toBeVisible();
  await expect(card.getByText('Nothing on file')).toBeVisible();
  for (const width of [375, 1280]) {
    await desk.setViewportSize({ width, height: 900 });
    await expectNoViolations(desk);
    await desk.screenshot({ path: `${SHOTS}/desk-${width}.png`, fullPage: true });
  }
  await desk.setViewportSize({ width: 1280, height: 900 });
  await card.getByRole('button', { name: 'Cancel…' }).click();
  await card.getByRole('textbox', { name: /A note to/ }).fill('I am unwell that day, sorry.');
  await desk.screenshot({ path: `${SHOTS}/desk-cancel-1280.png`, fullPage: true });
  await card.getByRole('button', { name: 'Cancel this consultation' }).click();
  await expect(desk.getByText(/Cancelled the consultation with Alan Turing/)).toBeVisible();

  const cancelled = await smtp.where(
    (m) =>
      m.envelope.to.includes(booked.envelope.to[0]!) && (m.subject ?? '').startsWith('Cancelled'),
  );
  const { method, event } = invite(cancelled);
  expect(method).toBe('CANCEL');
  expect(event.uid).toBe(original.uid);
  expect(Number(event.sequence)).toBeGreaterThan(Number(original.sequence));
  expect(cancelled.text).toContain('I am unwell that day, sorry.');
  await lookAtMail(browser, cancelled, 'cancelled-by-studio');
  await context.close();
});

test('the rest booked here is cancelled again from its own page', async ({ browser }) => {
  for (const link of bookedVisitors.splice(0)) {
    const page = await phone(browser);
    await page.goto(link);
    await page.getByRole('button', { name: 'Cancel my consultation' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(
      'Your consultation is cancelled',
    );
    await page.context().close();
  }
});

test('a weekly busy event with an exception in the instructor’s calendar removes exactly the slots it overlaps', async ({
  browser,
}) => {
  const page = await phone(browser);
  await page.goto('/consultation');
  const slots = await offered(page);
  const morning = (date: Temporal.PlainDate) =>
    slots
      .map(local)
      .filter((at) => at.toPlainDate().equals(date) && at.hour < 12)
      .map((at) => at.toPlainTime().toString({ smallestUnit: 'minute' }));
  const { thursdays, excepted } = busyThursdays(studioToday());
  const tomorrow = studioToday().add({ days: 1 });
  const checked: string[] = [];
  for (const thursday of thursdays.filter((day) => Temporal.PlainDate.compare(day, tomorrow) > 0)) {
    const times = morning(thursday);
    if (times.length === 0) continue; // beyond the horizon
    checked.push(thursday.equals(excepted) ? 'excepted' : 'busy');
    if (thursday.equals(excepted)) {
      expect(times, `${thursday} is excepted`).toEqual(
        expect.arrayContaining(['09:00', '09:15', '09:30']),
      );
    } else {
      // 9:00 and 9:15 (with its buffer) reach into 9:00-9:30; 9:30 does not.
      expect(times, `${thursday}`).not.toContain('09:00');
      expect(times, `${thursday}`).not.toContain('09:15');
      expect(times, `${thursday}`).toContain('09:30');
    }
  }
  // Three weeks ahead hold the excepted Thursday and at least one busy one.
  expect(checked).toContain('excepted');
  expect(checked).toContain('busy');
  await page.context().close();
});

test('Book Free Consultation on Contact leads here, and the contact form’s Consultation choice says a time can be booked directly', async ({
  page,
}) => {
  await page.goto('/contact');
  await page.getByRole('link', { name: 'Book Free Consultation' }).click();
  await expect(page).toHaveURL(/\/consultation$/);
  await page.goto('/contact?service=consultation#contact-form');
  const hint = page.getByRole('link', { name: 'book a time for your free consultation directly' });
  await expect(hint).toBeVisible();
  await page.goto('/contact');
  await expect(hint).toBeHidden();
  await expect(island(page, 'ContactForm')).toHaveAttribute('ssr');
});
