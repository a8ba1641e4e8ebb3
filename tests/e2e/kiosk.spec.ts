/**
 * The studio's waiver kiosk in Chromium, against its own `npm start` (a low WAIVER_RATE_LIMIT,
 * a real SMTP server): turned on from the desk, it signs 25 waivers in a row from one address
 * without a 429 while an ordinary visitor at the same address is held to the limit, and its form
 * keeps nothing of the previous signer. Turned off, the device's form is the ordinary one.
 */
import { mkdir } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { E2E_SMTP_PORT } from '../../playwright.config';
import { signaturePng } from '../fixtures/signatures';
import { startSmtp, type TestSmtp } from '../functions/harness';
import { startStudio, type Studio } from '../server/harness';
import { signInToDesk } from './desk';
import { expectNoViolations } from './axe';

const STAFF = 'maya@example.test';
const LIMIT = 5;
const SIGNERS = Number(process.env.KIOSK_SIGNERS ?? 25);
const SHOTS = 'test-results/kiosk';

let smtp: TestSmtp;
let studio: Studio;

test.describe.configure({ mode: 'serial', timeout: 300_000 });

test.beforeAll(async () => {
  // Its own `npm start` (its functions bundled, unless `npm start` of the other specs has done it
  // already): minutes on a machine whose cores are busy. A hook's own limit, not the tests'.
  test.setTimeout(330_000);
  smtp = await startSmtp(E2E_SMTP_PORT);
  await mkdir(SHOTS, { recursive: true });
  studio = await startStudio({
    env: {
      SMTP_URL: `smtp://127.0.0.1:${E2E_SMTP_PORT}/?tls.rejectUnauthorized=false`,
      CONTACT_TO: 'studio-inbox@example.test',
      STAFF_EMAILS: STAFF,
      WAIVER_RATE_LIMIT: `${LIMIT}/10m`,
      SIGN_IN_RATE_LIMIT: '1000/1m',
      SIGN_IN_ADDRESS_LIMIT: '1000/1m',
      SIGN_IN_INBOX_LIMIT: '1000/1m',
    },
  });
});

test.afterAll(async () => {
  await studio?.stop();
  await smtp?.stop();
});

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    baseURL: studio.url,
    viewport: { width: 1280, height: 900 },
  });
  return context.newPage();
}

async function screens(name: string, on: Page) {
  for (const width of [375, 1280]) {
    await on.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await expectNoViolations(on);
    await on.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await on.setViewportSize({ width: 1280, height: 900 });
}

/** Signs in to the desk as the studio (tests/e2e/desk.ts). */
const signIn = (page: Page) => signInToDesk(page, smtp, STAFF);

/** What the form holds: every field's value, the boxes, and the signature's hidden value. */
function formState(page: Page) {
  return page.locator('#waiver-form form').evaluate((form: HTMLFormElement) => ({
    values: [
      ...form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
        'input:not([type=hidden]):not([type=checkbox]), textarea',
      ),
    ].map((field) => field.value),
    ticked: [...form.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].some(
      (box) => box.checked,
    ),
    signature: (form.elements.namedItem('signature') as HTMLInputElement | null)?.value ?? '',
    autocomplete: [
      form.getAttribute('autocomplete'),
      ...[...form.querySelectorAll<HTMLInputElement>('input:not([type=hidden]), textarea')].map(
        (field) => field.getAttribute('autocomplete'),
      ),
    ],
  }));
}

test('a kiosk signs 25 waivers in a row without a 429, keeps nothing of the previous signer, and an ordinary visitor at its address is still held to the limit', async ({
  browser,
}) => {
  const tablet = await newPage(browser);
  await signIn(tablet);
  await tablet.goto('/records#/kiosk');
  await expect(tablet.getByRole('heading', { level: 2, name: 'Waiver kiosk' })).toBeVisible();
  await expect(
    tablet.getByText('This signs you out of the records desk on this device'),
  ).toBeVisible();
  await screens('desk-kiosk-off', tablet);
  await tablet.getByRole('textbox', { name: 'Name of this device' }).fill('Front desk tablet');
  await tablet.getByRole('button', { name: 'Turn this device into a waiver kiosk' }).click();
  // Signed out, and the waiver form in the desk's place.
  await expect(tablet).toHaveURL(/\/waiver$/);
  await expect(tablet.getByRole('heading', { level: 1, name: 'Liability Waiver' })).toBeVisible();

  const statuses: number[] = [];
  tablet.on('response', (response) => {
    if (response.url().endsWith('/api/submit-waiver')) statuses.push(response.status());
  });
  // No autofill from the first paint, before the form's script has run.
  const first = await formState(tablet);
  expect(new Set(first.autocomplete)).toEqual(new Set(['off']));

  const toast = tablet.locator('[data-sonner-toast]').filter({
    hasText: 'Waiver submitted successfully!',
  });
  for (let n = 1; n <= SIGNERS; n++) {
    await tablet.getByLabel('First Name').fill(`Signer${n}`);
    await tablet.getByLabel('Last Name').fill('Class');
    await tablet.getByLabel('Email').fill(`signer${n}.${Date.now()}@example.test`);
    await tablet.getByRole('textbox', { name: 'Phone', exact: true }).fill('503-555-0142');
    await tablet.getByLabel('Emergency Contact Name').fill('Rae Class');
    await tablet.getByLabel('Emergency Contact Phone').fill('503-555-0199');
    await tablet.getByLabel('Medical Conditions or Injuries').fill(`Condition of signer ${n}`);
    await tablet.getByRole('checkbox', { name: /agree to the liability waiver/ }).check();
    await tablet.getByLabel('Type your full name to sign').fill(`Signer${n} Class`);
    if (n === 1) await tablet.waitForFunction(() => performance.now() > 5_500);
    await tablet.getByRole('button', { name: 'Submit Waiver' }).click();
    await expect(toast.first()).toBeVisible();
    expect(statuses.at(-1), `waiver ${n}`).toBe(200);
    // Blank at once for the next signer.
    await expect(tablet.getByLabel('First Name')).toHaveValue('');
    await expect(
      tablet.getByRole('checkbox', { name: /agree to the liability waiver/ }),
    ).not.toBeChecked();
    await expect(tablet.getByRole('button', { name: 'Submit Waiver' })).toBeDisabled();
  }
  expect(statuses).toEqual(Array(SIGNERS).fill(200));

  // A few seconds later the notice is gone, the form is at the top, and nothing is left.
  await expect(toast).toHaveCount(0, { timeout: 10_000 });
  await expect(tablet.getByLabel('First Name')).toBeFocused();
  const last = await formState(tablet);
  expect(last.values.every((value) => value === '')).toBe(true);
  expect(last.ticked).toBe(false);
  expect(last.signature).toBe('');
  expect(new Set(last.autocomplete)).toEqual(new Set(['off']));
  await screens('kiosk-form', tablet);

  // An ordinary visitor at the same address (no kiosk cookie) is held to the limit.
  const visitor = await browser.newContext({ baseURL: studio.url });
  const answers: number[] = [];
  for (let n = 0; n <= LIMIT; n++) {
    const response = await visitor.request.post('/api/submit-waiver', {
      headers: { origin: studio.url },
      data: {
        waiver: {
          firstName: 'Walk',
          lastName: 'In',
          email: `walk-in-${n}@example.test`,
          phone: '503-555-0100',
          emergencyName: 'Someone',
          emergencyPhone: '503-555-0101',
          medicalConditions: '',
          medications: '',
          agreedToTerms: true,
          agreedToPhotos: false,
          signature: signaturePng(),
        },
        website: '',
        fillTimeMs: 20_000,
      },
    });
    answers.push(response.status());
  }
  expect(answers.at(-1)).toBe(429);
  expect(answers.filter((status) => status === 429)).toHaveLength(1);
  await visitor.close();

  // Turned off on the desk from her phone, the tablet's form is the ordinary one again.
  const phone = await newPage(browser);
  await signIn(phone);
  await phone.goto('/records#/kiosk');
  await phone.getByRole('button', { name: 'Turn off Front desk tablet' }).click();
  await expect(phone.getByRole('status')).toContainText('is turned off');
  await phone.context().close();
  await tablet.goto('/waiver');
  await tablet.getByLabel('First Name').focus();
  await expect(tablet.locator('#waiver-form form')).not.toHaveAttribute('autocomplete', 'off');
  await expect(tablet.getByLabel('First Name')).toHaveAttribute('autocomplete', 'given-name');
  await tablet.context().close();
});

test('a kiosk keeps no desk behind its waiver form: Back, history and the back-forward cache lead to no record, and signing in on it turns it off first', async ({
  browser,
}) => {
  const tablet = await newPage(browser);
  await signIn(tablet);
  // The desk as she left it: the waivers the class signed (the test above), on screen.
  await tablet.goto('/records#/waivers');
  await expect(tablet.getByText(/Signer\d+ Class/).first()).toBeVisible();
  await tablet.goto('/records#/kiosk');
  await tablet.getByRole('textbox', { name: 'Name of this device' }).fill('Class tablet');
  await tablet.getByRole('button', { name: 'Turn this device into a waiver kiosk' }).click();
  await expect(tablet).toHaveURL(/\/waiver$/);

  // Back, as far as the history goes: never a signed-in desk.
  for (let step = 0; step < 4; step++) {
    if (!(await tablet.goBack())) break;
    if (new URL(tablet.url()).pathname.startsWith('/records')) {
      await expect(tablet.getByText('This device is the studio’s waiver kiosk')).toBeVisible();
      await expect(tablet.getByText(`Signed in as ${STAFF}`)).toHaveCount(0);
      await expect(tablet.getByText(/Signer\d+ Class/)).toHaveCount(0);
    }
  }
  // Whatever page it is on, no desk request from this browser answers with a record.
  for (const path of ['/api/records/session', '/api/records/waivers', '/api/records/kiosks']) {
    const answer = await tablet.request.get(path);
    expect(answer.status(), path).toBe(403);
  }
  await tablet.goto('/records');
  await expect(tablet.getByText('This device is the studio’s waiver kiosk')).toBeVisible();
  await screens('desk-on-a-kiosk', tablet);

  // No sign-in form on it. A link asked for on her phone and opened on it asks first, and then
  // turns the kiosk off.
  await expect(tablet.getByRole('button', { name: 'Email me a sign-in link' })).toHaveCount(0);
  const before = smtp.mails.length;
  const phone = await newPage(browser);
  await phone.goto('/records');
  await phone.getByRole('textbox', { name: 'Email' }).fill(STAFF);
  await phone.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await expect.poll(() => smtp.mails.length).toBeGreaterThan(before);
  await phone.context().close();
  const mail = smtp.mails.slice(before).find((m) => m.envelope.to.includes(STAFF))!;
  const link = /https?:\/\/\S+\/records\/sign-in#token=[\w-]+/.exec(mail.text ?? '')![0];
  await tablet.goto(link);
  await tablet.getByRole('button', { name: 'Sign in' }).click();
  await expect(tablet.getByRole('status')).toContainText('Signing in turns the kiosk off');
  await screens('sign-in-on-a-kiosk', tablet);
  await tablet.getByRole('button', { name: 'Turn the kiosk off and sign in' }).click();
  await expect(tablet.getByText(`Signed in as ${STAFF}`)).toBeVisible();
  await tablet.goto('/records#/kiosk');
  await expect(tablet.getByText('Class tablet')).toHaveCount(0);
  await tablet.context().close();
});
