import { resolve } from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_FLAGS } from './scripts/chromium.ts';

const PORT = Number(process.env.E2E_PORT ?? 8899);
export const E2E_SMTP_PORT = Number(process.env.E2E_SMTP_PORT ?? 2526);
/** The instructor's busy calendar the server reads (tests/fixtures/busy-calendar-server.ts). */
export const E2E_ICS_PORT = Number(process.env.E2E_ICS_PORT ?? E2E_SMTP_PORT + 1);
/**
 * The same site with the studio's Stripe keys set (tests/e2e/payments.spec.ts), on a database of
 * its own, talking to the Stripe stand-in the spec starts (tests/fixtures/stripe.ts).
 */
export const E2E_PAY_PORT = Number(process.env.E2E_PAY_PORT ?? PORT + 2);
export const E2E_STRIPE_PORT = Number(process.env.E2E_STRIPE_PORT ?? E2E_SMTP_PORT + 2);
export const E2E_STRIPE_WEBHOOK_SECRET = 'whsec_e2e0stand0in0signing0secret';

/** What both servers are told. */
const SITE_ENV = {
  HOST: '127.0.0.1',
  // The test SMTP server offers STARTTLS with a certificate of its own (tests/fixtures/smtp.ts).
  SMTP_URL: `smtp://127.0.0.1:${E2E_SMTP_PORT}/?tls.rejectUnauthorized=false`,
  CONTACT_TO: 'studio-inbox@example.test',
  // The local database outlives a run; the limits have their own function tests.
  CONTACT_RATE_LIMIT: '10000/1m',
  WAIVER_RATE_LIMIT: '10000/1m',
  WAIVER_COPY_LIMIT: '10000/1h',
  SIGN_IN_RATE_LIMIT: '10000/1m',
  SIGN_IN_ADDRESS_LIMIT: '10000/1m',
  SIGN_IN_INBOX_LIMIT: '10000/1m',
  // Who may sign in to the records desk (tests/e2e/records.spec.ts).
  STAFF_EMAILS: 'maya@example.test',
  // The local mail retry runs often and waits little, so an outage test ends in seconds.
  OUTBOX_INTERVAL_MS: '2000',
  OUTBOX_BASE_DELAY_MS: '1000',
  // ...and gives up after three tries (a few seconds), so the desk's "send again" can be
  // tested; a mail server back within a second or two still gets the mail (contact.spec.ts).
  OUTBOX_MAX_ATTEMPTS: '3',
  OUTBOX_MAX_DELAY_MS: '2000',
  BOOKING_RATE_LIMIT: '10000/1m',
  CONSULTATION_EMAIL_LIMIT: '10000/1m',
  // Every booking comes from this machine (the caps have their own function tests).
  CONSULTATION_UPCOMING_PER_EMAIL: '10000',
  CONSULTATION_UPCOMING_PER_NETWORK: '10000',
  // The instructor's own calendar: a weekly event with an exception (consultation.spec.ts).
  CONSULTATION_BUSY_ICS_URL: `http://127.0.0.1:${E2E_ICS_PORT}/busy.ics`,
};

export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? 'list' : [['list']],
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_FLAGS,
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],
  webServer: [
    {
      command: `node tests/fixtures/busy-calendar-server.ts ${E2E_ICS_PORT}`,
      url: `http://127.0.0.1:${E2E_ICS_PORT}/busy.ics`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: 'node scripts/serve.ts --no-build',
      url: `http://127.0.0.1:${PORT}/`,
      reuseExistingServer: false,
      // Ready when it answers; its first start bundles the functions, minutes on busy cores.
      timeout: 600_000,
      env: { ...SITE_ENV, PORT: String(PORT) },
    },
    {
      // Started after the first, so the functions it loads are the ones the first compiled.
      command: 'node scripts/serve.ts --no-build',
      url: `http://127.0.0.1:${E2E_PAY_PORT}/`,
      reuseExistingServer: false,
      timeout: 600_000,
      env: {
        ...SITE_ENV,
        PORT: String(E2E_PAY_PORT),
        LOCAL_DB_DIR: resolve('.netlify', 'db-e2e-payments'),
        STRIPE_SECRET_KEY: 'sk_test_e2e',
        STRIPE_WEBHOOK_SECRET: E2E_STRIPE_WEBHOOK_SECRET,
        STRIPE_API_URL: `http://127.0.0.1:${E2E_STRIPE_PORT}`,
      },
    },
  ],
});
