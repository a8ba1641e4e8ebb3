/**
 * Get Notified in Chromium, against `npm start` with a real SMTP server: signing up with scripts
 * off and on, the confirmation link (its GET changes nothing, its button confirms), announcing
 * from the desk (once, with both List-Unsubscribe headers), RFC 8058's one-click unsubscribe with
 * no cookie, a second announcement that does not reach the address that left, and signing that
 * address up again.
 *
 * The site `npm start` serves for the other specs has no event to announce (only drafts), so this
 * spec builds a copy of the project with two events in 2030 and runs its own `npm start` on it
 * (its own port, embedded database and SMTP server). Screenshots: test-results/list/.
 */
import { mkdir } from 'node:fs/promises';
import { expect, request as requests, test, type Browser, type Page } from '@playwright/test';
import { copyProject, type ProjectCopy } from '../fixtures/project-copy';
import { startSmtp, type ReceivedMail, type TestSmtp } from '../fixtures/smtp';
import { startStudio, type Studio } from '../server/harness';
import { expectNoViolations } from './axe';
import { outboxDrained, signInToDesk } from './desk';
import { looker } from './look';

const SHOTS = 'test-results/list';
const STAFF = 'maya@example.test';
const ADA = 'ada@example.test';
const GRACE = 'grace@example.test';

let copy: ProjectCopy;
let smtp: TestSmtp;
let studio: Studio;

test.describe.configure({ mode: 'serial' });

const event = (title: string, start: string, end: string, summary: string) =>
  `---\ntitle: ${title}\nstart: ${start}\nend: ${end}\nplace: studio\nprice: 65\nsummary: ${summary}\n---\n\n${summary}\n`;

test.beforeAll(async () => {
  // A build of the copy, then its own `npm start` bundles the functions: minutes on busy cores.
  test.setTimeout(600_000);
  await mkdir(SHOTS, { recursive: true });
  [copy, smtp] = await Promise.all([copyProject('list-e2e-'), startSmtp()]);
  await copy.write(
    'content/events/spring-reformer-workshop.md',
    event(
      'Spring Reformer Workshop',
      '2030-04-20 09:30',
      '2030-04-20 12:00',
      'A morning on the reformer for every level.',
    ),
  );
  await copy.write(
    'content/events/park-mat-class.md',
    event(
      'Mat Class in the Park',
      '2030-06-08 10:00',
      '2030-06-08 11:00',
      'An hour of pilates under the trees.',
    ),
  );
  const built = await copy.astro('build');
  if (built.code !== 0) throw new Error(`the copy did not build:\n${built.output}`);
  studio = await startStudio({
    cwd: copy.dir,
    env: {
      SMTP_URL: smtp.url,
      STAFF_EMAILS: STAFF,
      SIGN_IN_RATE_LIMIT: '1000/1m',
      SIGN_IN_ADDRESS_LIMIT: '1000/1m',
      SIGN_IN_INBOX_LIMIT: '1000/1m',
      LIST_RATE_LIMIT: '1000/1m',
      OUTBOX_INTERVAL_MS: '500',
    },
  });
});

test.afterAll(async () => {
  await studio?.stop();
  await smtp?.stop();
  await copy?.dispose();
});

/** A page in a context of its own (axe needs one; cookies stay apart). */
async function open(browser: Browser, options: Parameters<Browser['newContext']>[0] = {}) {
  const context = await browser.newContext(options);
  return context.newPage();
}

const at = (path: string) => `${studio.url}${path}`;
const mailsTo = (to: string) => smtp.mails.filter((mail) => mail.envelope.to.includes(to));

async function newMailTo(to: string, before: number): Promise<ReceivedMail> {
  await expect.poll(() => mailsTo(to).length, { timeout: 20_000 }).toBeGreaterThan(before);
  return mailsTo(to)[before];
}

const linkIn = (mail: ReceivedMail, path: string) =>
  new RegExp(`https?://\\S+${path}\\?token=[\\w-]{43}`).exec(mail.text ?? '')![0];

const header = (mail: ReceivedMail, key: string) =>
  mail.headerLines.find((line) => line.key === key)?.line;

const look = looker(SHOTS);

async function lookAtMail(browser: Browser, mail: ReceivedMail, name: string) {
  const page = await open(browser, { javaScriptEnabled: false });
  await page.setContent(String(mail.html));
  await look(page, `mail-${name}`);
  await page.context().close();
}

/** The records desk, signed in with the mailed link as the instructor does. */
async function signedInDesk(browser: Browser): Promise<Page> {
  const desk = await open(browser, { baseURL: studio.url, viewport: { width: 1280, height: 900 } });
  await signInToDesk(desk, smtp, STAFF);
  return desk;
}

/** Signs up on the Events page, as a visitor does. */
async function signUp(page: Page, email: string) {
  await page.goto(at('/events'));
  const form = page.getByRole('form', { name: 'Get event announcements by e-mail' });
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('button', { name: 'Tell me when dates are announced' }).click();
  await expect(page).toHaveURL(at('/notify/sent'));
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();
}

test('signing up works with scripts off: the page loads no script and the form is answered with a page', async ({
  browser,
}) => {
  const page = await open(browser, { javaScriptEnabled: false });
  const scripts: string[] = [];
  page.on('request', (sent) => {
    if (sent.resourceType() === 'script') scripts.push(sent.url());
  });
  await page.goto(at('/events'));
  await expect(page.getByRole('link', { name: 'Get Notified' })).toHaveAttribute(
    'href',
    /^mailto:/,
  );
  expect(scripts).toEqual([]);
  await look(page, 'events-noscript');
  const before = mailsTo(ADA).length;
  await signUp(page, ADA);
  await look(page, 'sent');
  const mail = await newMailTo(ADA, before);
  expect(mail.subject).toBe('Please confirm: Still Point Pilates event announcements');
  await lookAtMail(browser, mail, 'confirm');
  await page.context().close();
});

test('signing up works with scripts on, and the form passes axe', async ({ browser }) => {
  const page = await open(browser);
  await page.goto(at('/events'));
  await expectNoViolations(page);
  await look(page, 'events');
  const before = mailsTo(GRACE).length;
  await signUp(page, GRACE);
  await newMailTo(GRACE, before);
  await page.context().close();
});

test("the confirmation link's GET changes nothing; its button confirms", async ({ browser }) => {
  const page = await open(browser);
  for (const to of [ADA, GRACE]) {
    const link = linkIn(mailsTo(to).at(-1)!, '/notify/confirm');
    // A mail scanner opens the link, maybe twice: the page still asks.
    await page.goto(link);
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Confirm your address' })).toBeVisible();
    if (to === ADA) await look(page, 'confirm-page');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByRole('heading', { name: 'You are on the list' })).toBeVisible();
    if (to === ADA) await look(page, 'confirmed-page');
  }
  await page.context().close();
});

test('an announcement sent from the desk arrives once at each confirmed address with both List-Unsubscribe headers; one-click without cookies unsubscribes; the next announcement does not reach that address', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const desk = await signedInDesk(browser);

  await desk.goto(at('/records#/list'));
  await expect(desk.getByRole('heading', { name: 'Get Notified list' })).toBeVisible();
  const workshop = desk.getByRole('article', { name: 'Spring Reformer Workshop' });
  await workshop.getByRole('button', { name: 'Announce to 2 addresses' }).click();
  await expect(desk.getByText(/announced to 2 addresses/)).toBeVisible();
  await look(desk, 'desk-list');

  await expect
    .poll(() => smtp.mails.filter((mail) => mail.subject?.includes('Spring Reformer')).length)
    .toBe(2);
  const announcements = smtp.mails.filter((mail) => mail.subject?.includes('Spring Reformer'));
  expect(announcements.map((mail) => mail.envelope.to[0]).sort()).toEqual([ADA, GRACE]);
  const toAda = announcements.find((mail) => mail.envelope.to[0] === ADA)!;
  expect(header(toAda, 'list-unsubscribe-post')).toBe(
    'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
  );
  expect(header(toAda, 'list-unsubscribe')).toMatch(/<https?:\/\/\S+\/notify\/unsubscribe\?token=/);
  expect(header(toAda, 'list-id')).toContain('<events.stillpointpilates.studio>');
  expect(toAda.text).toContain('2140 SE Division St, Portland, OR 97202');
  await lookAtMail(browser, toAda, 'announcement');

  // Once: with the outbox owing nothing, no second copy is on its way.
  await outboxDrained(desk);
  expect(smtp.mails.filter((mail) => mail.subject?.includes('Spring Reformer'))).toHaveLength(2);

  // RFC 8058: the mail client POSTs to the header's URL by itself, with no cookie and no Origin.
  const oneClickUrl = /<(https?:[^>]+)>/.exec(header(toAda, 'list-unsubscribe')!)![1];
  const bare = await requests.newContext();
  const answer = await bare.post(oneClickUrl, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    data: 'List-Unsubscribe=One-Click',
  });
  expect(answer.status()).toBe(200);
  await bare.dispose();

  // The visible link's page now says so, and asks nothing.
  const visitor = await open(browser);
  await visitor.goto(linkIn(toAda, '/notify/unsubscribe'));
  await expect(visitor.getByRole('heading', { name: 'You are unsubscribed' })).toBeVisible();
  await look(visitor, 'unsubscribed-page');
  await visitor.context().close();

  await desk.reload();
  const park = desk.getByRole('article', { name: 'Mat Class in the Park' });
  await park.getByRole('button', { name: 'Announce to 1 address' }).click();
  await expect
    .poll(() => smtp.mails.filter((mail) => mail.subject?.includes('Mat Class')).length)
    .toBe(1);
  await outboxDrained(desk);
  const parkMails = smtp.mails.filter((mail) => mail.subject?.includes('Mat Class'));
  expect(parkMails.map((mail) => mail.envelope.to[0])).toEqual([GRACE]);
  await desk.context().close();
});

test('signing the address that left up again gets the same answer and a new confirmation mail only', async ({
  browser,
}) => {
  const page = await open(browser, { javaScriptEnabled: false });
  const before = mailsTo(ADA).length;
  await signUp(page, ADA);
  const mail = await newMailTo(ADA, before);
  expect(mail.subject).toBe('Please confirm: Still Point Pilates event announcements');
  const desk = await signedInDesk(browser);
  await outboxDrained(desk);
  expect(mailsTo(ADA)).toHaveLength(before + 1);
  await desk.context().close();
  await page.context().close();
});
