import { mkdir } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import type { ReceivedMail } from '../fixtures/smtp';
import { PERSON_SPAM_CHECKS, sessionBody } from '../fixtures/submissions';
import { mailbox } from './mailbox';
import { expectNoViolations } from './axe';
import { signInToDesk } from './desk';

/**
 * The desk's Bookings screen in Chromium against `npm start` (with a real SMTP server), on a
 * phone: a private session and a class place booked on the site appear with the person's waiver
 * and what is due; she marks the session paid at the studio and cancels the place, whose person
 * gets the calendar's CANCEL. The local database outlives a run: every visitor here is new, and
 * what is booked is cancelled.
 */
const BASE = `http://127.0.0.1:${process.env.E2E_PORT ?? 8899}`;
const RUN = Date.now().toString(36);
const STAFF = 'maya@example.test';
const SHOTS = process.env.SHOTS_DIR ?? 'test-results/bookings';
const PHONE = { width: 375, height: 812 };

const smtp = mailbox();

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
});

async function phone(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE, viewport: PHONE });
  return context.newPage();
}

/** A JSON post from a page of the site, as its forms' scripts send them. */
async function post(page: Page, path: string, body: unknown): Promise<number> {
  return page.evaluate(
    async ([to, json]) =>
      (
        await fetch(to, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(json),
        })
      ).status,
    [path, body] as const,
  );
}

const methodOf = (mail: ReceivedMail) => {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar');
  return part && /^METHOD:(\w+)/m.exec(part.content.toString('utf8'))?.[1];
};

test('on a phone: who is booked, their waiver and payment; paid at the studio; a place cancelled', async ({
  browser,
}) => {
  // A long walk through the desk (and, since the undo, back again): three times the default.
  test.slow();
  const visitor = await phone(browser);
  // A private session at a free time, from its page.
  await visitor.goto('/book/private');
  const slot = await visitor.locator('input[name="slot"]').last().getAttribute('value');
  const grace = { name: `Grace ${RUN}`, email: `grace-${RUN}@example.test` };
  expect(await post(visitor, '/api/book-session', sessionBody('private', slot!, grace))).toBe(200);
  // A place in the first class still taking bookings.
  await visitor.goto('/classes');
  const lesson = visitor
    .locator('li[data-class]')
    .filter({ has: visitor.getByText('Book a place') })
    .first();
  const which = {
    class: (await lesson.getAttribute('data-class'))!,
    start: (await lesson.getAttribute('data-start'))!,
  };
  const ann = { name: `Ann ${RUN}`, email: `ann-${RUN}@example.test` };
  expect(
    await post(visitor, '/api/classes/book', { ...which, ...ann, ...PERSON_SPAM_CHECKS }),
  ).toBe(200);

  const page = await phone(browser);
  await signInToDesk(page, smtp, STAFF);
  const nav = page.getByRole('navigation', { name: 'Records desk' });
  await nav.getByRole('link', { name: 'Bookings', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Bookings', level: 2 })).toBeVisible();

  const session = page.getByRole('article').filter({ hasText: grace.email });
  await expect(session).toContainText('Private Session');
  await expect(session).toContainText('Nothing on file');
  await expect(session).toContainText('Due at the studio: $120');
  const roster = page.getByRole('article').filter({ hasText: ann.email });
  await expect(roster).toContainText(/\d of \d places booked/);
  await expect(roster).toContainText('Due at the studio:');
  // Content first: the screen's heading just under one row of navigation.
  const heading = page.getByRole('heading', { name: 'Bookings', level: 2 });
  expect((await heading.boundingBox())!.y).toBeLessThan(200);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoViolations(page);
  await page.screenshot({ path: `${SHOTS}/bookings-375-top.png` });
  await page.screenshot({ path: `${SHOTS}/bookings-375.png`, fullPage: true });
  await session.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/bookings-375-session.png` });

  await session.getByRole('button', { name: 'Paid at the studio' }).click();
  await expect(session.getByRole('status')).toContainText('Marked paid at the studio');
  await expect(session).toContainText('Paid at the studio: $120');
  await expect(session.getByRole('button', { name: 'Paid at the studio' })).toHaveCount(0);
  // A press by mistake is taken back on the same card.
  await session.getByRole('button', { name: 'Not paid after all' }).click();
  await expect(session.getByRole('status')).toContainText('is no longer marked paid');
  await expect(session).toContainText('Due at the studio: $120');
  await session.getByRole('button', { name: 'Paid at the studio' }).click();
  await expect(session).toContainText('Paid at the studio: $120');

  // Cancelling Ann's place: she gets the cancellation with the calendar's CANCEL.
  const place = roster.getByRole('listitem').filter({ hasText: ann.email });
  await place.getByRole('button', { name: 'Cancel…' }).click();
  await place.getByRole('textbox', { name: `A note to ${ann.name} (optional)` }).fill('Sorry!');
  await place.getByRole('button', { name: 'Cancel their place' }).click();
  // Her own place's status (a roster may hold places cancelled by earlier runs on this database).
  await expect(place.getByRole('status')).toContainText(`Cancelled: ${ann.name}`);
  const told = await smtp.where(
    (m) => m.envelope.to.includes(ann.email) && /^Cancelled/.test(m.subject ?? ''),
  );
  expect(methodOf(told)).toBe('CANCEL');
  expect(told.text).toContain('Sorry!');

  await place.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/bookings-375-place-cancelled.png` });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SHOTS}/bookings-1280-top.png` });
  await page.screenshot({ path: `${SHOTS}/bookings-1280.png`, fullPage: true });
  // Without scripts the desk says what it needs.
  const plain = await browser.newContext({
    baseURL: BASE,
    viewport: PHONE,
    javaScriptEnabled: false,
  });
  const noScript = await plain.newPage();
  await noScript.goto('/records#/bookings');
  await noScript.screenshot({ path: `${SHOTS}/bookings-375-no-script.png`, fullPage: true });
  await plain.close();

  // The session is cancelled too, leaving the local database as it was.
  await page.setViewportSize(PHONE);
  await session.getByRole('button', { name: 'Cancel…' }).click();
  await session.getByRole('button', { name: 'Cancel this session' }).click();
  await expect(session).toContainText('Cancelled');
  const cancelled = await smtp.where(
    (m) => m.envelope.to.includes(grace.email) && /^Cancelled/.test(m.subject ?? ''),
  );
  expect(methodOf(cancelled)).toBe('CANCEL');
});

test('a single class date added on the desk, booked on /classes, then cancelled: shown cancelled, nobody listed as booked', async ({
  browser,
}) => {
  // A day of the coming weeks at an early hour no timetable class takes, in the studio's zone.
  const seed = Number.parseInt(RUN.slice(-4), 36);
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(
    new Date(Date.now() + (2 + (seed % 18)) * 86_400_000),
  );
  const time = `05:${String(seed % 45).padStart(2, '0')}`;
  const name = `Workshop ${RUN}`;

  const page = await phone(browser);
  await signInToDesk(page, smtp, STAFF);
  await page
    .getByRole('navigation', { name: 'Records desk' })
    .getByRole('link', { name: 'Bookings', exact: true })
    .click();
  await page.getByRole('button', { name: 'Add a single class date…' }).click();
  const form = page.getByRole('form', { name: 'Add a single class date' });
  await form
    .getByLabel('Class', { exact: true })
    .selectOption({ label: 'Another class (give it a name)' });
  await form.getByLabel('Name visitors read').fill(name);
  await form.getByLabel('Date').fill('2020-01-07');
  await form.getByLabel('Starts at').fill(time);
  await form.getByLabel('Length in minutes').fill('15');
  await form.getByLabel('Places').fill('2');
  await form.getByLabel('Price in dollars').fill('30');
  await form.getByRole('button', { name: 'Add this date' }).click();
  await expect(form).toContainText('That time has passed: please choose a date and time to come.');
  // Later today, past the classes' cutoff: the form says so before she adds it, as the page will.
  const soon = new Date(Date.now() + 2 * 3_600_000);
  const studio = (options: Intl.DateTimeFormatOptions, locale = 'en-CA') =>
    new Intl.DateTimeFormat(locale, { timeZone: 'America/Los_Angeles', ...options }).format(soon);
  await form.getByLabel('Date').fill(studio({}));
  await form
    .getByLabel('Starts at')
    .fill(studio({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }, 'en-GB'));
  await expect(form.locator('[data-outlook]')).toContainText(
    'So nobody could book this one on the classes page, and it would be cancelled at once.',
  );
  await form.getByRole('button', { name: 'Add this date' }).click();
  await expect(form.getByText('Please choose a time at least 12 hours from now.')).toHaveCount(1);
  await form.getByLabel('Starts at').fill(time);
  await form.getByLabel('Date').fill(day);
  await expect(form.locator('[data-outlook]')).toContainText(
    'Visitors can book it on the classes page now. If fewer than 2 people have booked by',
  );
  await form.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/bookings-375-add-class.png` });
  await form.getByRole('button', { name: 'Add this date' }).click();
  await expect(page.getByRole('status').first()).toContainText(`Added ${name}`);

  // Bookable on /classes at its price.
  const visitor = await phone(browser);
  await visitor.goto('/classes');
  const lesson = visitor.locator('li[data-class]').filter({ hasText: name });
  await expect(lesson).toContainText('$30');
  const bea = { name: `Bea ${RUN}`, email: `bea-${RUN}@example.test` };
  expect(
    await post(visitor, '/api/classes/book', {
      class: (await lesson.getAttribute('data-class'))!,
      start: (await lesson.getAttribute('data-start'))!,
      ...bea,
      ...PERSON_SPAM_CHECKS,
    }),
  ).toBe(200);

  await page.reload();
  const card = page.getByRole('article').filter({ hasText: name });
  await expect(card).toContainText('1 of 2 places booked');
  await expect(card).toContainText('Single date');
  await expect(card.getByRole('list', { name: `Who is booked for ${name}` })).toContainText(
    bea.email,
  );

  // Cancelled: shown so, and Bea no longer listed among who is booked.
  await card.getByRole('button', { name: 'Cancel this class…' }).click();
  await card.getByRole('button', { name: 'Cancel this class' }).click();
  await expect(card).toContainText(`Cancelled ${name}`);
  await expect(card).toContainText('Nobody is booked for it now');
  await expect(card.getByRole('list', { name: `Who is booked for ${name}` })).toHaveCount(0);
  await expect(card.getByRole('region', { name: 'Who had booked' })).toContainText(bea.email);
  await expect(card).not.toContainText('places booked');
  await smtp.where((m) => m.envelope.to.includes(bea.email) && /^Cancelled/.test(m.subject ?? ''));
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/bookings-375-class-cancelled.png` });
  await page.setViewportSize({ width: 1280, height: 900 });
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/bookings-1280-class-cancelled.png` });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByRole('button', { name: 'Add a single class date…' }).click();
  await page.screenshot({ path: `${SHOTS}/bookings-1280-add-class.png` });
});
