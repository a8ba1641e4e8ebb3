import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { E2E_SMTP_PORT } from '../../playwright.config';
import { FRESH_SIGN_IN_NEEDED, SIGN_IN_SENT, SIGNED_OUT_IDLE } from '../../src/shared/desk-api';
import { parseCsv } from '../fixtures/csv';
import { signaturePng } from '../fixtures/signatures';
import { startSmtp, type TestSmtp } from '../functions/harness';
import { localDatabase, outboxDrained, signInToDesk } from './desk';
import { expectNoViolations, smallTargets } from './axe';
import { builtPages } from './pages';

/**
 * The records desk in Chromium against `npm start` (the server Playwright starts, with
 * STAFF_EMAILS and a real SMTP server): one instructor's session through every screen, in order.
 */
const BASE = `http://127.0.0.1:${process.env.E2E_PORT ?? 8899}`;
const STAFF = 'maya@example.test';
const STUDIO_INBOX = 'studio-inbox@example.test';
// The local database outlives a run: every participant here is new, and erased at the end.
const RUN = Date.now().toString(36);
const SURNAME = `Okafor${RUN}`;
const NAME = `Ada ${SURNAME}`;
const EMAIL = `ada.${RUN}@example.test`;
const SHOTS = 'test-results/records';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let smtp: TestSmtp;
let page: Page;
/** Anything the site's Content-Security-Policy blocked on the desk, all along. */
const violations: string[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  smtp = await startSmtp(E2E_SMTP_PORT);
  await mkdir(SHOTS, { recursive: true });
  page = await newDesk(browser);
});

test.afterAll(async () => {
  await page?.context().close();
  await smtp?.stop();
});

async function newDesk(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    baseURL: BASE,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  const desk = await context.newPage();
  await desk.exposeFunction('reportViolation', (text: string) => violations.push(text));
  // Init scripts come from the browser's driver, not the page, so the policy does not apply.
  await desk.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportViolation(text: string): void }).reportViolation;
      report(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`);
    });
  });
  return desk;
}

/** The newest mail matching `match`, waiting for it to arrive. */
async function mailWhere(match: (mail: TestSmtp['mails'][number]) => boolean) {
  await expect.poll(() => smtp.mails.some(match), { timeout: 20_000 }).toBe(true);
  return smtp.mails.filter(match).at(-1)!;
}

const mailsTitled = (subject: string) => smtp.mails.filter((mail) => mail.subject === subject);

/** A waiver signed as the site's own waiver page sends it (the form has its own tests). */
async function signWaiver(request: APIRequestContext) {
  const response = await request.post('/api/submit-waiver', {
    headers: { origin: BASE },
    data: {
      waiver: {
        firstName: 'Ada',
        lastName: SURNAME,
        email: EMAIL,
        phone: '+1 (503) 555-0142',
        emergencyName: 'Tomas Okafor',
        emergencyPhone: '503-555-0199',
        medicalConditions: 'Old knee injury, e2e',
        medications: 'None',
        agreedToTerms: true,
        agreedToPhotos: false,
        signature: signaturePng(),
      },
      website: '',
      fillTimeMs: 20_000,
    },
  });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

/** A message as the contact page sends it; `spam` fills in the honeypot only bots see. */
async function sendMessage(request: APIRequestContext, name: string, spam = false) {
  const response = await request.post('/api/send-email', {
    headers: { origin: BASE },
    data: {
      name,
      email: EMAIL,
      service: '',
      message: `Hello from ${name}.\nIs there room on Tuesdays?`,
      website: spam ? 'https://spam.example' : '',
      fillTimeMs: 9_000,
    },
  });
  expect(response.status()).toBe(200);
}

/**
 * The screen as it is, at a phone's width and a laptop's: no axe violation, no small target,
 * nothing wider than the screen; a full-page screenshot of each in test-results/records/.
 */
async function screens(name: string, on: Page = page) {
  for (const width of [375, 1280]) {
    await on.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await expectNoViolations(on);
    expect(await smallTargets(on), `${name} at ${width} px`).toEqual([]);
    const overflow = await on.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name} is wider than ${width} px`).toBeLessThanOrEqual(0);
    await on.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await on.setViewportSize({ width: 1280, height: 900 });
}

/**
 * Moves the instructor's live sessions back in time in the database of the server under test
 * (`localDatabase()`): `signedIn` minutes since she followed
 * her link, `idle` minutes since her last request. The server's own clock cannot be moved from
 * here, as a function test moves it; its data can.
 */
async function age({ signedIn = 0, idle = 0 }: { signedIn?: number; idle?: number }) {
  const client = await localDatabase();
  try {
    await client.query(
      `UPDATE staff_sessions
          SET created_at = created_at - make_interval(mins => $2::int),
              last_seen_at = last_seen_at - make_interval(mins => $3::int)
        WHERE email = $1 AND revoked_at IS NULL AND expires_at > now()`,
      [STAFF, signedIn, idle],
    );
  } finally {
    await client.end();
  }
}

/** The sign-in link in the newest mail to the instructor after `before` mails had come. */
async function newLink(before: number) {
  await expect
    .poll(() => smtp.mails.slice(before).some((m) => m.envelope.to.includes(STAFF)))
    .toBe(true);
  const mail = smtp.mails
    .slice(before)
    .filter((m) => m.envelope.to.includes(STAFF))
    .at(-1)!;
  return /https?:\/\/\S+\/records\/sign-in#token=[\w-]+/.exec(mail.text ?? '')![0];
}

/** Follows a mailed link in another tab of the same browser, as from her mail, and signs in. */
async function followInNewTab(link: string) {
  const tab = await page.context().newPage();
  await tab.goto(link);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await expect(tab.getByText(`Signed in as ${STAFF}`)).toBeVisible();
  await tab.close();
}

const heading = (name: string | RegExp) => page.getByRole('heading', { level: 2, name });

/** Opens a screen from the desk's navigation: from its row, or from under More. */
async function open(screen: string) {
  const nav = page.getByRole('navigation', { name: 'Records desk' });
  const link = nav.getByRole('link', { name: new RegExp(`^${screen}`) });
  if ((await link.count()) === 0) await nav.getByRole('button', { name: /^More/ }).click();
  await link.click();
}

/** Signs in to the desk as the studio (tests/e2e/desk.ts). */
const signIn = (desk: Page) => signInToDesk(desk, smtp, STAFF);

test('asks for a sign-in link, follows it from the mail and signs in with a __Host- cookie', async () => {
  await page.goto('/records');
  await expect(heading('Sign in')).toBeVisible();
  await screens('sign-in');

  await page.getByRole('textbox', { name: 'Email' }).fill(STAFF);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await expect(page.getByText(SIGN_IN_SENT)).toBeVisible();
  const mail = await mailWhere((m) => m.envelope.to.includes(STAFF));
  expect(mail.subject).toBe('Your sign-in link for the Still Point Pilates records desk');
  const link = /https?:\/\/\S+\/records\/sign-in#token=[\w-]+/.exec(mail.text ?? '')![0];
  expect(new URL(link).origin).toBe(BASE);

  // A mail scanner that fetches the link spends nothing: the page asks for a press first.
  expect((await page.request.get(link)).status()).toBe(200);
  await page.goto(link);
  // The token leaves the address bar (and the history) at once.
  await expect(page).toHaveURL(`${BASE}/records/sign-in`);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  await screens('follow-link');
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page).toHaveURL(/\/records$/);
  await expect(page.getByText(`Signed in as ${STAFF}`)).toBeVisible();
  const cookie = (await page.context().cookies()).find((c) => c.name === '__Host-desk');
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });

  // The link was used: following it again signs nobody in.
  const again = await page.context().browser()!.newPage({ baseURL: BASE });
  await again.goto(link);
  await again.getByRole('button', { name: 'Sign in' }).click();
  await expect(again.getByText(/expired or was already used/)).toBeVisible();
  await again.close();
});

test('finds a waiver by part of a surname, opens it, and downloads the very PDF mailed at signing', async () => {
  await signWaiver(page.request);
  const records = await mailWhere(
    (m) => m.envelope.to.includes(STUDIO_INBOX) && (m.subject ?? '').includes(NAME),
  );
  const attachment = records.attachments[0]!;
  const mailed = sha256(attachment.content);

  await page.goto('/records');
  await expect(heading('Overview')).toBeVisible();
  await open('Waivers');
  await expect(heading('Waivers')).toBeFocused();
  await page.getByRole('searchbox', { name: 'Name, e-mail or phone' }).fill(`KAFOR${RUN}`);
  await page.getByRole('button', { name: 'Search' }).click();
  const result = page.getByRole('link', { name: new RegExp(NAME) });
  await expect(result).toHaveCount(1);
  await expect(page.getByRole('status').getByText('1 waiver shown, newest first.')).toBeVisible();
  await screens('waivers');

  await result.click();
  await expect(heading(NAME)).toBeFocused();
  await expect(page.getByText('Old knee injury, e2e')).toBeVisible();
  await expect(page.getByRole('img', { name: `Signature of ${NAME}` })).toBeVisible();
  await expect(page.getByText(mailed)).toBeVisible();
  await screens('waiver');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download the signed PDF' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(attachment.filename);
  expect(sha256(await readFile(await download.path()))).toBe(mailed);
});

test('exports both CSVs for a date range and reads them back', async () => {
  await sendMessage(page.request, NAME);
  await open('Export');
  await expect(heading('Export')).toBeFocused();
  await screens('export');
  const today = new Date().toLocaleDateString('en-CA');

  const waivers = page.getByRole('form', { name: 'Waivers' });
  await waivers.getByLabel('From').fill(today);
  await waivers.getByLabel('To').fill(today);
  await waivers.getByRole('checkbox', { name: /Include health information/ }).check();
  const [waiverCsv] = await Promise.all([
    page.waitForEvent('download'),
    waivers.getByRole('button', { name: 'Download waivers (CSV)' }).click(),
  ]);
  expect(waiverCsv.suggestedFilename()).toBe(`waivers-${today}.csv`);
  const waiverBytes = await readFile(await waiverCsv.path());
  expect([...waiverBytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const [header, ...rows] = parseCsv(waiverBytes.subarray(3).toString('utf8'));
  const row = rows.find((cells) => cells.includes(SURNAME))!;
  const cell = (name: string) => row[header!.indexOf(name)];
  expect(cell('First Name')).toBe('Ada');
  expect(cell('Email')).toBe(EMAIL);
  expect(cell('Phone')).toBe("'+1 (503) 555-0142");
  expect(cell('Medical Conditions or Injuries')).toBe('Old knee injury, e2e');
  expect(cell('Consents to promotional photos')).toBe('No');

  const messages = page.getByRole('form', { name: 'Messages' });
  await messages.getByLabel('From').fill(today);
  await messages.getByLabel('To').fill(today);
  const [messageCsv] = await Promise.all([
    page.waitForEvent('download'),
    messages.getByRole('button', { name: 'Download messages (CSV)' }).click(),
  ]);
  expect(messageCsv.suggestedFilename()).toBe(`messages-${today}.csv`);
  const messageBytes = await readFile(await messageCsv.path());
  const [messageHeader, ...messageRows] = parseCsv(messageBytes.subarray(3).toString('utf8'));
  const message = messageRows.find((cells) => cells.includes(NAME))!;
  expect(message[messageHeader!.indexOf('Message')]).toBe(
    `Hello from ${NAME}.\nIs there room on Tuesdays?`,
  );
});

test('an export with health information, signed in over 15 minutes ago, asks for a fresh link and works once she follows it', async () => {
  await age({ signedIn: 20 });
  await page.goto('/records#/export');
  const waivers = page.getByRole('form', { name: 'Waivers' });
  await waivers.getByRole('checkbox', { name: /Include health information/ }).check();
  await waivers.getByRole('button', { name: 'Download waivers (CSV)' }).click();
  await expect(waivers.getByText(FRESH_SIGN_IN_NEEDED)).toBeVisible();
  await screens('export-fresh-sign-in');

  const before = smtp.mails.length;
  await waivers.getByRole('button', { name: 'Email me a fresh sign-in link' }).click();
  await expect(waivers.getByText(/^A fresh sign-in link is on its way to/)).toBeVisible();
  await screens('export-fresh-sign-in-sent');
  await followInNewTab(await newLink(before));

  const [csv] = await Promise.all([
    page.waitForEvent('download'),
    waivers.getByRole('button', { name: 'Download waivers (CSV)' }).click(),
  ]);
  expect(await readFile(await csv.path(), 'utf8')).toContain('Medical Conditions or Injuries');
});

test('marks a spam message as not spam: it moves to the inbox and its mail arrives once', async () => {
  const name = `${NAME} (again)`;
  await sendMessage(page.request, name, true);
  await open('Messages');
  await page.getByRole('combobox', { name: 'Show' }).selectOption('spam');
  await page.getByRole('searchbox', { name: 'Name, e-mail or words' }).fill(SURNAME);
  await page.getByRole('button', { name: 'Search' }).click();
  const message = page.getByRole('article', { name });
  await expect(message.getByText(/^Spam: filled in the hidden field/)).toBeVisible();
  await screens('messages');

  await message.getByRole('button', { name: 'Not spam' }).click();
  await expect(
    page.getByText(`The message from ${name} is in the inbox and was e-mailed to the studio.`),
  ).toBeVisible();
  await expect(message.getByText('E-mailed')).toBeVisible();
  await expect.poll(() => mailsTitled(`New Inquiry from ${name}`).length).toBe(1);

  // Pressed again (a second tab, a double click that slipped through): still one mail.
  const listed = await page.request.get(`/api/records/messages?q=${encodeURIComponent(name)}`);
  const { items } = (await listed.json()) as { items: { id: string }[] };
  for (let i = 0; i < 2; i++) {
    const press = await page.request.post(`/api/records/messages/${items[0]!.id}/not-spam`, {
      headers: { origin: BASE },
      data: {},
    });
    expect(await press.json()).toMatchObject({ success: true, queued: false });
  }
  await outboxDrained(page);
  expect(mailsTitled(`New Inquiry from ${name}`)).toHaveLength(1);
});

test('a mail sent while the mail server is down is listed as owed, then failed; "send again" delivers it once', async () => {
  test.slow();
  const name = `${NAME} (outage)`;
  const mail = page.getByRole('article').filter({ hasText: `Message from ${name}` });
  smtp.setFailing(true);
  try {
    await sendMessage(page.request, name);
    // The answer comes as soon as the message is stored; the first try at its mail, after it.
    await page.goto('/records#/delivery');
    await expect(async () => {
      await page.reload();
      await expect(mail.getByText('Still being tried')).toBeVisible({ timeout: 2_000 });
      await expect(mail.getByText(/451/)).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });

    await page.goto('/records#/');
    await expect(page.getByText(/^Not everything was delivered/)).toBeVisible();
    await screens('overview');

    // npm start gives up after OUTBOX_MAX_ATTEMPTS (3 in these tests): the mail is failed.
    await page.goto('/records#/delivery');
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole('heading', { name: 'Unsent mail' })).toBeVisible();
      await expect(mail.getByText('Failed', { exact: true })).toBeVisible({ timeout: 3_000 });
    }).toPass({ timeout: 60_000 });
    await screens('delivery');
  } finally {
    smtp.setFailing(false);
  }
  await mail.getByRole('button', { name: 'Send again' }).click();
  await expect(page.getByText(/^Sent: message to the studio/)).toBeVisible();
  await expect.poll(() => mailsTitled(`New Inquiry from ${name}`).length).toBe(1);
  await expect(mail).toHaveCount(0);
  await outboxDrained(page);
  expect(mailsTitled(`New Inquiry from ${name}`)).toHaveLength(1);
});

test('works from the keyboard alone: the menu, a search, a result and back', async () => {
  await page.goto('/records#/');
  await expect(heading('Overview')).toBeVisible();
  await page.getByRole('link', { name: 'Waivers', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(heading('Waivers')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('searchbox', { name: 'Name, e-mail or phone' })).toBeFocused();
  await page.keyboard.type(SURNAME);
  await page.keyboard.press('Enter');
  const result = page.getByRole('link', { name: new RegExp(NAME) });
  await expect(result).toBeVisible();
  await expect(page.getByRole('searchbox', { name: 'Name, e-mail or phone' })).toBeFocused();
  // Past the two dates (three stops each: month, day, year), Search and Clear.
  for (let i = 0; i < 12 && !(await result.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press('Tab');
  }
  await expect(result).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(heading(NAME)).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(
    page.getByRole('link', { name: 'Their status and every waiver they signed' }),
  ).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Download the signed PDF' })).toBeFocused();
  await page.goBack();
  await expect(heading('Waivers')).toBeFocused();
});

test('on a phone the screen comes first: one row of navigation, the rest under More, signing out after the screen', async () => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto('/records#/');
  await expect(heading('Overview')).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Records desk' });
  const top = async (locator: ReturnType<Page['locator']>) => (await locator.boundingBox())!.y;
  const navBox = (await nav.boundingBox())!;
  // One row of tabs (44 px targets), then the screen's own heading.
  expect(navBox.height).toBeLessThanOrEqual(52);
  expect((await top(heading('Overview'))) - navBox.y).toBeLessThanOrEqual(80);
  for (const name of ['Overview', 'Bookings', 'Waivers']) {
    await expect(nav.getByRole('link', { name, exact: true })).toBeVisible();
  }
  await expect(nav.getByRole('link', { name: 'Access log' })).toBeHidden();
  // Signing out is after the screen, not before it.
  const signOut = page.getByRole('button', { name: 'Sign out', exact: true });
  await expect(signOut).toBeVisible();
  expect(await top(signOut)).toBeGreaterThan(
    await top(page.getByText('Records past their keeping time')),
  );

  // The rest is one tap away.
  const more = nav.getByRole('button', { name: /^More/ });
  await more.click();
  await expect(more).toHaveAttribute('aria-expanded', 'true');
  await screens('nav-more');
  await page.setViewportSize({ width: 375, height: 812 });
  await nav.getByRole('link', { name: 'Waiver texts' }).click();
  await expect(heading('Waiver texts')).toBeVisible();
  await expect(more).toHaveAttribute('aria-expanded', 'false');
  await expect(nav.getByRole('link', { name: 'Waiver texts' })).toBeHidden();
  // Escape closes it and gives the focus back to More.
  await more.click();
  await page.keyboard.press('Escape');
  await expect(more).toHaveAttribute('aria-expanded', 'false');
  await expect(more).toBeFocused();
  await page.setViewportSize({ width: 1280, height: 900 });
  // On a laptop more screens are in the row, still one row; the rarest stay under More.
  for (const name of ['Messages', 'Waiver texts', 'Mail']) {
    await expect(nav.getByRole('link', { name: new RegExp(`^${name}`) })).toBeVisible();
  }
  await expect(nav.getByRole('link', { name: 'Access log' })).toBeHidden();
  expect((await nav.boundingBox())!.height).toBeLessThanOrEqual(52);
});

test('the first screen says what the next daily clean-up will remove, and how long each kind is kept', async () => {
  const db = await localDatabase();
  // A message taken for spam 40 days ago (spam is kept 30), and the tombstone of an earlier run.
  const { rows: added } = await db.query<{ id: string }>(
    `INSERT INTO contact_messages (name, email, message, created_at, spam_reason)
     VALUES ($1, $2, 'Cheap watches', now() - interval '40 days', 'honeypot') RETURNING id::text`,
    [`Old spam ${RUN}`, `old-spam.${RUN}@example.test`],
  );
  const yesterday = new Date(Date.now() - 86_400_000);
  yesterday.setUTCHours(9, 0, 0, 0);
  const { rows: logged } = await db.query<{ id: string }>(
    `INSERT INTO records_access_log (actor, action, detail)
     VALUES ('npm run rotate-key', 'rotate-key', $2::jsonb),
            ('the retention schedule', 'retention', $1::jsonb) RETURNING id::text`,
    [
      JSON.stringify({
        at: yesterday.toISOString(),
        removed: [
          {
            name: 'spamMessages',
            one: 'message taken for spam',
            many: 'messages taken for spam',
            count: 2,
          },
          { name: 'sessions', one: 'desk session', many: 'desk sessions', count: 1 },
        ],
      }),
      JSON.stringify({
        toKey: '5a1c9e03',
        waivers: 212,
        fields: 424,
        pdfs: 198,
        bookings: 37,
        remaining: 0,
      }),
    ],
  );
  try {
    await page.goto('/records#/');
    await expect(heading('Overview')).toBeVisible();
    const preview = (await (await page.request.get('/api/records/retention')).json()) as {
      next: string;
      items: { name: string; count: number }[];
    };
    const spam = preview.items.find((item) => item.name === 'spamMessages')!.count;
    expect(spam).toBeGreaterThanOrEqual(1);
    expect(new Date(preview.next).getUTCHours()).toBe(9);

    const panel = page.getByRole('region', { name: 'Records past their keeping time' });
    await expect(panel.getByText(/^The next daily clean-up, on .+, will remove:$/)).toBeVisible();
    await expect(
      panel.getByRole('listitem').filter({
        hasText: `${spam} message${spam === 1 ? '' : 's'} taken for spam (kept 30 days from arrival)`,
      }),
    ).toBeVisible();
    await expect(
      panel.getByText(
        /^The last run that removed anything, on .+: 2 messages taken for spam, 1 desk session\.$/,
      ),
    ).toBeVisible();
    await panel.getByText('How long each kind of record is kept').click();
    await expect(
      panel.getByText("Signed waivers: 7 years from the participant's last signing"),
    ).toBeVisible();
    await screens('overview-retention');

    await open('Access log');
    const line = page
      .getByRole('listitem')
      .filter({ hasText: 'Removed records past their keeping time' });
    await expect(line.first()).toContainText(
      'The site’s daily clean-up · 2 messages taken for spam, 1 desk session',
    );
    await expect(
      page
        .getByRole('listitem')
        .filter({ hasText: 'Re-encrypted the health information with a new key' })
        .first(),
    ).toContainText(
      'Whoever runs the site · 212 waivers (424 fields, 198 signed PDFs), 37 consultation links to key 5a1c9e03, nothing left on an older key',
    );
    await screens('log-retention');
  } finally {
    await db.query('DELETE FROM contact_messages WHERE id = $1', [added[0]!.id]);
    await db.query('DELETE FROM records_access_log WHERE id = ANY($1::bigint[])', [
      logged.map((row) => row.id),
    ]);
    await db.end();
  }
});

test('erases a participant after the address is typed again: nothing of them is left but the log line', async () => {
  await page.goto(`/records#/waivers?q=${SURNAME}`);
  await page.getByRole('link', { name: new RegExp(NAME) }).click();
  await page.getByRole('link', { name: `Erase everything held about ${EMAIL}` }).click();
  await expect(heading('Erase a participant')).toBeFocused();
  await expect(page.getByRole('textbox', { name: "The participant's e-mail address" })).toHaveValue(
    EMAIL,
  );
  await page.getByRole('button', { name: 'Find what is held' }).click();
  const held = page.getByRole('form', { name: `Held about ${EMAIL}` });
  await expect(held.getByText(/^1 waiver \(signed/)).toBeVisible();
  await expect(held.getByText(/^3 messages \(sent/)).toBeVisible();
  await screens('erase');

  await held
    .getByRole('textbox', { name: 'Type the e-mail address again to confirm' })
    .fill('ada@');
  await held.getByRole('button', { name: 'Erase everything' }).click();
  await expect(held.getByText(/again, exactly, to confirm/)).toBeVisible();
  await held
    .getByRole('textbox', { name: 'Type the e-mail address again to confirm' })
    .fill(EMAIL.toUpperCase());
  // Her sign-in is over 15 minutes old: the desk asks for a fresh one and erases nothing yet.
  await age({ signedIn: 20 });
  await held.getByRole('button', { name: 'Erase everything' }).click();
  await expect(page.getByText(FRESH_SIGN_IN_NEEDED)).toBeVisible();
  expect(
    JSON.parse(await (await page.request.get(`/api/records/waivers?q=${SURNAME}`)).text()),
  ).toMatchObject({ items: [expect.anything()] });
  await screens('erase-fresh-sign-in');
  const before = smtp.mails.length;
  await page.getByRole('button', { name: 'Email me a fresh sign-in link' }).click();
  await expect(page.getByText(/^A fresh sign-in link is on its way to/)).toBeVisible();
  await followInNewTab(await newLink(before));
  await held.getByRole('button', { name: 'Erase everything' }).click();
  await expect(
    page.getByText(
      new RegExp(
        `^Erased everything held about ${EMAIL.replace(/\./g, '\\.')}: 1 waiver, 3 messages, 0 bookings, \\d+ e-mails and 1 signed PDF\\.`,
      ),
    ),
  ).toBeVisible();

  // Nothing of them anywhere the desk can see...
  const get = async (path: string) => (await page.request.get(path)).text();
  for (const path of [
    `/api/records/waivers?q=${SURNAME}`,
    `/api/records/messages?q=${encodeURIComponent(EMAIL)}`,
  ]) {
    expect(JSON.parse(await get(path))).toMatchObject({ items: [] });
  }
  expect(await get('/api/records/delivery')).not.toContain(SURNAME);
  expect(await get('/api/records/export/waivers?health=yes')).not.toContain(SURNAME);
  expect(await get('/api/records/export/messages')).not.toContain(SURNAME);
  // ...but the log line: when, who, and what, in counts and record ids.
  const log = JSON.parse(await get('/api/records/log')) as {
    items: { action: string; actor: string; detail: Record<string, unknown> }[];
  };
  // (The exports just made are newer lines: the newest erasure is this one.)
  expect(log.items.find((item) => item.action === 'erase')).toMatchObject({
    action: 'erase',
    actor: STAFF,
    detail: { waivers: 1, messages: 3, pdfs: 1 },
  });
  expect(JSON.stringify(log)).not.toMatch(new RegExp(`${SURNAME}|${RUN}@|ada\\.${RUN}`, 'i'));

  await open('Access log');
  await expect(page.getByText("Erased a participant's records").first()).toBeVisible();
  await screens('log');
});

test('"sign out everywhere" ends every session of the person; "sign out" ends this one', async ({
  browser,
}) => {
  const phone = await newDesk(browser);
  await signIn(phone);
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page.getByText('You are signed out on every device.')).toBeVisible();
  expect((await page.request.get('/api/records/session')).status()).toBe(401);
  expect((await phone.request.get('/api/records/session')).status()).toBe(401);
  await phone.reload();
  await expect(phone.getByRole('heading', { level: 2, name: 'Sign in' })).toBeVisible();

  await signIn(phone);
  await phone.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(phone.getByText('You are signed out.')).toBeVisible();
  expect((await phone.request.get('/api/records/session')).status()).toBe(401);
  await phone.context().close();
});

test('after 30 minutes without use the desk signs her out, on the server and on the screen', async ({
  browser,
}) => {
  const phone = await newDesk(browser);
  await phone.clock.install();
  const desk = phone.getByRole('navigation', { name: 'Records desk' });

  // The server: a session unused for 31 minutes opens nothing, and the desk says so.
  await signIn(phone);
  await age({ idle: 31 });
  // A move to another screen, as her tap on it makes one.
  await phone.evaluate(() => {
    window.location.hash = '#/messages';
  });
  await expect(phone.getByText('Your session has ended. Please sign in again.')).toBeVisible();
  expect((await phone.request.get('/api/records/session')).status()).toBe(401);

  // The screen: 30 minutes after its last request it shows nothing of the records any more.
  await signIn(phone);
  // Both requests the screen makes answered first: each one starts the 30 minutes again.
  await Promise.all([
    phone.waitForResponse((response) => response.url().endsWith('/api/records/session')),
    phone.waitForResponse((response) => response.url().includes('/api/records/waivers')),
    desk.getByRole('link', { name: 'Waivers', exact: true }).click(),
  ]);
  await expect(phone.getByRole('heading', { level: 2, name: 'Waivers' })).toBeVisible();
  await phone.clock.fastForward('29:00');
  await expect(phone.getByText(`Signed in as ${STAFF}`)).toBeVisible();
  await phone.clock.fastForward('02:00');
  await expect(phone.getByText(SIGNED_OUT_IDLE)).toBeVisible();
  await expect(phone.getByRole('heading', { level: 2, name: 'Sign in' })).toBeVisible();
  await expect(phone.getByText(`Signed in as ${STAFF}`)).toHaveCount(0);
  await expect(phone.getByRole('navigation', { name: 'Records desk' })).toHaveCount(0);
  await screens('signed-out-idle', phone);
  await phone.context().close();
});

test("every screen ran under the site's Content-Security-Policy with nothing blocked", () => {
  expect(violations).toEqual([]);
});

test('without script, the desk and the page of a sign-in link say they need JavaScript', async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: BASE, javaScriptEnabled: false });
  const plain = await context.newPage();
  // (Playwright's text locators skip <noscript>: the words are read from the page as shown.)
  const shown = () => plain.locator('main').evaluate((main: HTMLElement) => main.innerText);
  await plain.goto('/records');
  expect(await shown()).toContain('The records desk needs JavaScript.');
  await plain.goto('/records/sign-in#token=abc');
  expect(await shown()).toContain(
    'Signing in needs JavaScript: turn it on for this site, then open the link from your e-mail again.',
  );
  await context.close();
});

test.describe('the public pages', () => {
  const publicPages = builtPages().filter((path) => !path.startsWith('/records'));

  for (const path of publicPages) {
    test(`${path} loads no byte of the desk`, async ({ page: visitor }) => {
      const bodies: Promise<string>[] = [];
      const urls: string[] = [];
      visitor.on('response', (response) => {
        urls.push(response.url());
        if (/\.(js|css)(\?|$)/.test(response.url())) bodies.push(response.text());
      });
      await visitor.goto(path, { waitUntil: 'networkidle' });
      // Touch the page so the islands that wait for a first interaction load too.
      await visitor.keyboard.press('Tab');
      await visitor.mouse.click(5, 5);
      await visitor.waitForLoadState('networkidle');
      expect(urls.filter((url) => /records|RecordsDesk|sign-in/i.test(url))).toEqual([]);
      for (const body of [await visitor.content(), ...(await Promise.all(bodies))]) {
        expect(body).not.toContain('/api/records');
        expect(body).not.toContain('Records desk');
      }
    });
  }

  test('robots.txt keeps crawlers out of the desk, and its pages say noindex', async ({
    request,
  }) => {
    expect(await (await request.get('/robots.txt')).text()).toMatch(/^Disallow: \/records$/m);
    for (const path of ['/records', '/records/sign-in']) {
      const response = await request.get(path);
      expect(response.headers()['x-robots-tag']).toBe('noindex, nofollow');
      expect(response.headers()['cache-control']).toBe('no-store');
      expect(await response.text()).toContain('<meta name="robots" content="noindex, nofollow">');
    }
  });
});
