/**
 * Participants and versions of the waiver on the records desk, in Chromium against `npm start`
 * with a real SMTP server: one person signing twice on the waiver page is one participant,
 * covered, with the change in their health information flagged; after the text they signed is
 * superseded, the desk asks them once to sign again, and the mailed link opens the form ready
 * for them; signing it covers them again.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { E2E_SMTP_PORT } from '../../playwright.config';
import { startSmtp, type TestSmtp } from '../functions/harness';
import { localDatabase, signInToDesk } from './desk';
import { expectNoViolations } from './axe';

const BASE = `http://127.0.0.1:${process.env.E2E_PORT ?? 8899}`;
const STAFF = 'maya@example.test';
// The local database outlives a run: every participant here is new.
const RUN = Date.now().toString(36);
const SURNAME = `Marsh${RUN}`;
const EMAIL = `june.${RUN}@example.test`;
const SHOTS = 'test-results/participants';

let smtp: TestSmtp;
let desk: Page;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  smtp = await startSmtp(E2E_SMTP_PORT);
  await mkdir(SHOTS, { recursive: true });
  desk = await newPage(browser);
});

test.afterAll(async () => {
  await desk?.context().close();
  await smtp?.stop();
});

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    baseURL: BASE,
    viewport: { width: 1280, height: 900 },
  });
  return context.newPage();
}

/** A full-page screenshot at a phone's width and a laptop's, with no axe violation. */
async function screens(name: string, on: Page) {
  for (const width of [375, 1280]) {
    await on.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await expectNoViolations(on);
    const overflow = await on.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name} is wider than ${width} px`).toBeLessThanOrEqual(0);
    await on.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await on.setViewportSize({ width: 1280, height: 900 });
}

/** Signs on the waiver page, by typing a name; `ready` for a form a link has filled in. */
async function signOnThePage(
  page: Page,
  { email, medical, ready = false }: { email: string; medical: string; ready?: boolean },
) {
  if (!ready) {
    await page.getByLabel('First Name').fill('June');
    await page.getByLabel('Last Name').fill(SURNAME);
    await page.getByLabel('Email').fill(email);
  }
  await page.getByRole('textbox', { name: 'Phone', exact: true }).fill('503-555-0142');
  await page.getByLabel('Emergency Contact Name').fill('Rae Marsh');
  await page.getByLabel('Emergency Contact Phone').fill('503-555-0199');
  await page.getByLabel('Medical Conditions or Injuries').fill(medical);
  await page.getByRole('checkbox', { name: /agree to the liability waiver/ }).check();
  await page.getByLabel('Type your full name to sign').fill(`June ${SURNAME}`);
  // People take a while over a waiver; the time trap takes anything under 5 s for a bot.
  await page.waitForFunction(() => performance.now() > 5_500);
  await page.getByRole('button', { name: 'Submit Waiver' }).click();
  await expect(
    page.locator('[data-sonner-toast]').filter({ hasText: 'Waiver submitted successfully!' }),
  ).toBeVisible();
}

/** Signs in to the desk as the studio (tests/e2e/desk.ts). */
const signIn = (page: Page) => signInToDesk(page, smtp, STAFF);

async function quickCheck(page: Page, text: string) {
  await page.goto('/records#/');
  const search = page.getByRole('search', { name: 'Quick check' });
  await search.getByRole('searchbox', { name: 'Quick check' }).fill(text);
  await search.getByRole('button', { name: 'Check' }).click();
  return page.getByRole('region', { name: 'Is this person covered?' }).getByRole('listitem');
}

test('one person signing twice, in two spellings of their address, is one participant, covered, with the health change flagged', async ({
  browser,
}) => {
  const visitor = await newPage(browser);
  await visitor.goto('/waiver');
  await signOnThePage(visitor, { email: EMAIL.toUpperCase(), medical: 'None' });
  await visitor.goto('/waiver');
  await signOnThePage(visitor, { email: EMAIL, medical: `Sprained ankle, ${RUN}` });
  await visitor.context().close();

  await signIn(desk);
  const found = await quickCheck(desk, SURNAME);
  await expect(found).toHaveCount(1);
  await expect(found.first()).toContainText('Covered');
  await expect(found.first()).toContainText(EMAIL);
  await screens('quick-check', desk);

  await found
    .first()
    .getByRole('link', { name: `June ${SURNAME}` })
    .click();
  await expect(desk.getByRole('heading', { level: 2, name: `June ${SURNAME}` })).toBeVisible();
  await expect(desk.getByText('Their latest waiver is under the version in force.')).toBeVisible();
  await expect(desk.getByText('Waivers signed')).toBeVisible();
  await expect(desk.getByText(`Sprained ankle, ${RUN}`)).toHaveCount(0);
  await desk.getByRole('button', { name: 'Show health information' }).click();
  const health = desk.getByRole('region', { name: 'Health information' });
  await expect(health).toContainText('Medical Conditions or Injuries.');
  await expect(health.getByText(/^Changed on /)).toBeVisible();
  await expect(health).toContainText(`Sprained ankle, ${RUN}`);
  await screens('participant', desk);
});

test('signers of a superseded text are asked once to sign again; the mailed link opens the form ready for them, and signing covers them again', async ({
  browser,
}) => {
  // The whole journey (the desk, the mail, the form with and without scripts, screenshots at
  // two widths): more than 30 s when the cores are busy.
  test.slow();
  // A text before the one in force, as if it had been superseded by a material new version:
  // this participant's waivers are moved under it in the server's own database.
  const db = await localDatabase();
  const oldText = `An earlier waiver text, ${RUN}.`;
  const oldSha = createHash('sha256').update(oldText).digest('hex');
  await db.query(
    `INSERT INTO waiver_texts (sha256, version, text) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [oldSha, `e2e-${RUN}`, oldText],
  );
  await db.query(`UPDATE waivers SET waiver_text_sha256 = $1 WHERE lower(email) = $2`, [
    oldSha,
    EMAIL,
  ]);
  await db.end();

  await desk.goto('/records#/versions');
  await expect(desk.getByRole('heading', { level: 2, name: 'Waiver texts' })).toBeVisible();
  const older = desk.getByRole('region', { name: 'Signed an older version' });
  const row = older.getByRole('listitem').filter({ hasText: SURNAME });
  await expect(row).toContainText(`version e2e-${RUN}`);
  await expect(row).toContainText('not asked yet');
  await expect(desk.getByText(`Version e2e-${RUN}`, { exact: true })).toBeVisible();
  await screens('versions', desk);

  const before = smtp.mails.length;
  await older.getByRole('button', { name: /^Send re-sign requests/ }).click();
  await expect(older.getByRole('status')).toContainText('sent');
  await expect(row).toContainText('asked');
  // Pressed again (another tab, a double click): nothing more is queued.
  const again = await desk.evaluate(async () => {
    const response = await fetch('/api/records/re-sign', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    return (await response.json()) as { requested: number };
  });
  expect(again.requested).toBe(0);
  const requests = () =>
    smtp.mails
      .slice(before)
      .filter(
        (mail) =>
          mail.envelope.to.includes(EMAIL) && /updated liability waiver/.test(mail.subject ?? ''),
      );
  await expect.poll(() => requests().length, { timeout: 20_000 }).toBe(1);
  // Mail is only ever sent from the outbox: one re-sign mail queued for this person, and it
  // sent, so no second one can come.
  const outbox = await localDatabase();
  const queued = async () =>
    (
      await outbox.query<{ n: number; sent: number }>(
        `SELECT count(*)::int AS n, count(o.sent_at)::int AS sent
           FROM mail_outbox o
           JOIN waiver_resign_requests r ON o.ref = r.waiver_id || ':' || r.version
          WHERE o.kind = 'waiver-re-sign' AND r.email_key = $1`,
        [EMAIL.toLowerCase()],
      )
    ).rows[0];
  // Marked sent once the mail server has taken it, a moment after it arrives there.
  await expect.poll(queued).toEqual({ n: 1, sent: 1 });
  await outbox.end();
  expect(requests()).toHaveLength(1);
  const mail = requests()[0]!;
  expect(mail.subject).toBe('Please sign the updated liability waiver - Still Point Pilates');
  const link = /https?:\/\/\S+\/waiver#re-sign=[\w-]{43}/.exec(mail.text ?? '')![0];
  expect(new URL(link).origin).toBe(BASE);
  expect(new URL(link).search).toBe('');
  expect(link).not.toContain(RUN);

  // The mail as a participant's mail app shows it.
  const reader = await newPage(browser);
  await reader.setContent(String(mail.html));
  await screens('re-sign-mail', reader);
  expect(
    await reader.getByRole('link', { name: 'Sign the updated waiver' }).getAttribute('href'),
  ).toBe(link);
  await reader.context().close();

  // Following the link: the form is ready for them, before they touch it.
  const participant = await newPage(browser);
  await participant.goto(link);
  // It says why they are here: the waiver changed since they signed.
  await expect(
    participant
      .getByRole('status')
      .filter({ hasText: 'The waiver has changed since you last signed' }),
  ).toBeVisible();
  // The token leaves the address bar once exchanged (in a POST's body, never a path).
  await expect.poll(() => new URL(participant.url()).hash).toBe('');
  await expect(participant.getByLabel('First Name')).toHaveValue('June');
  await screens('re-sign-form', participant);
  // Without script the fragment stays in the browser: the plain form, blank, with no notice.
  const plain = await browser.newContext({ baseURL: BASE, javaScriptEnabled: false });
  const noScript = await plain.newPage();
  await noScript.goto(link);
  await expect(noScript.getByText('The waiver has changed since you last signed')).toHaveCount(0);
  await expect(noScript.getByLabel('First Name')).toHaveValue('');
  // (axe needs script in the page: these are looked at, not checked.)
  for (const width of [375, 1280]) {
    await noScript.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await noScript.screenshot({
      path: `${SHOTS}/re-sign-form-no-script-${width}.png`,
      fullPage: true,
    });
  }
  await plain.close();
  await expect(participant.getByLabel('Last Name')).toHaveValue(SURNAME);
  await expect(participant.getByLabel('Email')).toHaveValue(EMAIL);
  await signOnThePage(participant, {
    email: EMAIL,
    medical: `Sprained ankle, ${RUN}`,
    ready: true,
  });
  await participant.context().close();

  const found = await quickCheck(desk, SURNAME);
  await expect(found).toHaveCount(1);
  await expect(found.first()).toContainText('Covered');
  await desk.goto('/records#/versions');
  await expect(
    desk.getByRole('region', { name: 'Signed an older version' }).getByText(SURNAME),
  ).toHaveCount(0);
});
