/** The records desk in the browser tests: signing in as the studio does, and its database. */
import { readFile } from 'node:fs/promises';
import { expect, type Browser, type Page } from '@playwright/test';
import pg from 'pg';
import { SIGN_IN_SENT, type Undelivered } from '../../src/shared/desk-api';
import type { TestSmtp } from '../functions/harness';

/**
 * Asks for a link on the desk as `staff`, follows it from the mail `smtp` received and presses
 * "Sign in". Returns the link.
 */
export async function signInToDesk(page: Page, smtp: TestSmtp, staff: string): Promise<string> {
  const before = smtp.mails.length;
  await page.goto('/records');
  await page.getByRole('textbox', { name: 'Email' }).fill(staff);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await expect(page.getByText(SIGN_IN_SENT)).toBeVisible();
  await expect.poll(() => smtp.mails.length).toBeGreaterThan(before);
  const mail = smtp.mails.slice(before).find((m) => m.envelope.to.includes(staff))!;
  const link = /https?:\/\/\S+\/records\/sign-in#token=[\w-]+/.exec(mail.text ?? '')![0];
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Signed in as ${staff}`)).toBeVisible();
  return link;
}

/**
 * Waits until the outbox owes no mail (the delivery list of the signed-in `desk`): every mail the
 * server will send is then sent, so a count of mails received is final; no waiting for a window
 * in which a second copy might come.
 */
export async function outboxDrained(desk: Page): Promise<void> {
  const owed = async () => {
    const answer = await desk.request.get(new URL('/api/records/delivery', desk.url()).href);
    expect(answer.status()).toBe(200);
    return ((await answer.json()) as { undelivered: Undelivered }).undelivered.owed;
  };
  await expect.poll(owed, { timeout: 20_000 }).toBe(0);
}

/**
 * Resolves once the outbox owes no mail, seen from the desk in a browser context of its own
 * (signed in as `staff` through `smtp`): every mail the server will send for what it has
 * answered is then sent, and a count of mails is final.
 */
export async function mailSettled(browser: Browser, smtp: TestSmtp, staff: string): Promise<void> {
  const context = await browser.newContext();
  try {
    const desk = await context.newPage();
    await signInToDesk(desk, smtp, staff);
    await outboxDrained(desk);
  } finally {
    await context.close();
  }
}

/** The local database of the server under test (npm start's embedded one, through its proxy). */
export async function localDatabase(): Promise<pg.Client> {
  const state = JSON.parse(await readFile('.netlify/state.json', 'utf8')) as {
    dbConnectionString: string;
  };
  const client = new pg.Client({ connectionString: state.dbConnectionString });
  await client.connect();
  return client;
}
