import { expect, test } from '@playwright/test';
import { E2E_SMTP_PORT } from '../../playwright.config';
import type { ReceivedMail } from '../fixtures/smtp';
import { startSmtp, type TestSmtp } from '../functions/harness';

/** The spec's mail server, and the last mail that matches once it has come. */
export interface Mailbox extends TestSmtp {
  /** The last mail received that `match`es, waiting up to 20 s for one. */
  where(match: (mail: ReceivedMail) => boolean): Promise<ReceivedMail>;
}

/**
 * A real SMTP server on E2E_SMTP_PORT (where `npm start` sends the site's mail) for the tests of
 * the spec that calls it at its top: started before its first test, stopped after its last.
 */
export function mailbox(): Mailbox {
  let smtp: TestSmtp | undefined;
  test.beforeAll(async () => {
    smtp = await startSmtp(E2E_SMTP_PORT);
  });
  test.afterAll(async () => {
    await smtp?.stop();
  });
  const server = (): TestSmtp => {
    if (!smtp) throw new Error('The mail server starts before the spec’s first test.');
    return smtp;
  };
  return {
    get url() {
      return server().url;
    },
    get port() {
      return server().port;
    },
    get mails() {
      return server().mails;
    },
    waitForMails: (count, timeoutMs) => server().waitForMails(count, timeoutMs),
    setFailing: (failing) => server().setFailing(failing),
    stop: () => server().stop(),
    async where(match) {
      await expect.poll(() => server().mails.some(match), { timeout: 20_000 }).toBe(true);
      return server().mails.filter(match).at(-1)!;
    },
  };
}
