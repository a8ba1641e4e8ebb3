/**
 * What must hold when Netlify runs many instances of a function at once, each a separate Node
 * process with its own pool, all on one real PostgreSQL server: the database, not any one
 * process, decides what is stored and sent.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { useFunctionEnv } from '../fixtures/function-env';
import { startInstances, type Answer, type Call, type Instance } from '../fixtures/instances';
import { renderPage } from '../fixtures/on-demand';
import { bookingBody, contactBody, waiverBody } from '../fixtures/submissions';

const ROOT = resolve(import.meta.dirname, '../..');
const STUDIO = 'studio-inbox@example.test';
const RECORDS = 'waiver-records@example.test';
const KEY = randomBytes(32).toString('base64');

const env = useFunctionEnv();
// Each test starts up to ten Node processes; on a busy two-CPU machine that alone takes seconds.
vi.setConfig({ testTimeout: 90_000 });

let running: Instance[] = [];
afterEach(async () => {
  await Promise.all(running.map((instance) => instance.stop()));
  running = [];
});

/** `count` processes, each with the function `name` loaded from functions/ and its own pool. */
async function instances(
  name: string,
  count: number,
  settings: Record<string, string> = {},
): Promise<Instance[]> {
  const started = await startInstances(count, {
    module: resolve(ROOT, 'functions', `${name}.ts`),
    source: true,
    cwd: ROOT,
    env: {
      NETLIFY_DB_URL: env.url,
      NETLIFY_DB_DRIVER: 'server',
      SMTP_URL: env.smtp.url,
      CONTACT_TO: STUDIO,
      WAIVER_RECORDS_TO: RECORDS,
      // One key for all: it also keys the client fingerprints the rate limit counts.
      WAIVER_ENCRYPTION_KEY: KEY,
      ...settings,
    },
  });
  running.push(...started);
  return started;
}

/** Every instance gets its calls at the same moment; resolves with all the answers. */
async function atOnce(all: Instance[], calls: (index: number) => Call[]): Promise<Answer[]> {
  const answers = await Promise.all(all.map((instance, index) => instance.run(calls(index))));
  const flat = answers.flat();
  const thrown = flat.find((answer) => answer.error);
  if (thrown) throw new Error(`a handler threw: ${thrown.error}`);
  return flat;
}

// Mails are counted without waiting: an instance awaits its `waitUntil` work before it
// reports, and the test SMTP server has a mail in `mails` before it accepts it.

function contactCall(fields: Record<string, unknown>, ip: string): Call {
  const url = 'http://127.0.0.1:8888/api/send-email';
  return {
    url,
    headers: { origin: new URL(url).origin, 'content-type': 'application/json' },
    body: JSON.stringify(contactBody(fields)),
    ip,
  };
}

function waiverCall(submissionId: string, ip: string): Call {
  const url = 'http://127.0.0.1:8888/api/submit-waiver';
  return {
    url,
    headers: { origin: new URL(url).origin, 'content-type': 'application/json' },
    body: JSON.stringify(waiverBody({ medicalConditions: 'Mild scoliosis', submissionId })),
    ip,
  };
}

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);

describe('identical submissions from parallel instances', () => {
  test('ten instances posting one contact submission three times each store one row and send one mail', async () => {
    const all = await instances('send-email', 10);
    const submissionId = randomUUID();
    // A client per instance, so the rate limit stays out of it.
    const answers = await atOnce(all, (i) =>
      Array.from({ length: 3 }, () => contactCall({ submissionId }, `198.51.100.${i + 1}`)),
    );
    expect(statuses(answers)).toEqual(Array(30).fill(200));
    expect(new Set(answers.map((answer) => JSON.parse(answer.body).id))).toEqual(
      new Set([submissionId]),
    );
    expect(await env.count('contact_messages')).toBe(1);
    expect(await env.count('mail_outbox')).toBe(1);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails.map((mail) => mail.subject)).toEqual(['New Inquiry from Ada Lovelace']);
  });

  test('ten instances posting one waiver twice each file one waiver and send its two mails once', async () => {
    const all = await instances('submit-waiver', 10);
    const submissionId = randomUUID();
    const answers = await atOnce(all, (i) =>
      Array.from({ length: 2 }, () => waiverCall(submissionId, `198.51.100.${i + 1}`)),
    );
    expect(statuses(answers)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((answer) => JSON.parse(answer.body).id)).size).toBe(1);
    expect(await env.count('waivers')).toBe(1);
    expect(await env.count('mail_outbox')).toBe(2);
    await env.smtp.waitForMails(2);
    const recipients = env.smtp.mails.map((mail) => mail.envelope.to.join()).sort();
    expect(recipients).toEqual(['ingrid@example.test', RECORDS]);
  });
});

describe('the outbox after a mail server outage', () => {
  test('four retry-mail runs at once send every owed mail exactly once', async () => {
    // Thirty messages and three waivers arrive while the mail server refuses everything.
    env.smtp.setFailing(true);
    const senders = await instances('send-email', 3);
    const waivers = await instances('submit-waiver', 3);
    const submitted = await Promise.all([
      atOnce(senders, (i) =>
        Array.from({ length: 10 }, (_, n) =>
          contactCall({ name: `Visitor ${i}-${n}` }, `203.0.113.${10 * i + n + 1}`),
        ),
      ),
      atOnce(waivers, (i) => [waiverCall(randomUUID(), `192.0.2.${i + 1}`)]),
    ]);
    expect(statuses(submitted.flat())).toEqual(Array(33).fill(200));
    const owed = 30 + 3 * 2;
    expect(await env.count('mail_outbox')).toBe(owed);
    expect(env.smtp.mails).toHaveLength(0);

    // The server is back, and the retries are due.
    env.smtp.setFailing(false);
    await env.db.exec('UPDATE mail_outbox SET next_attempt_at = now()');
    const drains = await instances('retry-mail', 4);
    const runs = await atOnce(drains, () => [
      { url: 'http://127.0.0.1:8888/.netlify/functions/retry-mail' },
    ]);
    expect(statuses(runs)).toEqual([200, 200, 200, 200]);
    const sent = runs.map((run) => (JSON.parse(run.body) as { sent: number }).sent);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(owed);

    await env.smtp.waitForMails(owed);
    const ids = env.smtp.mails.map((mail) => mail.messageId);
    expect(ids).toHaveLength(owed);
    expect(new Set(ids).size).toBe(owed);
    const { rows } = await env.db.query<{ unsent: number }>(
      'SELECT count(*)::int AS unsent FROM mail_outbox WHERE sent_at IS NULL',
    );
    expect(rows[0]!.unsent).toBe(0);
  });
});

describe('the rate limit across instances', () => {
  test('twenty messages at once from one address through ten instances: exactly the limit of five is accepted', async () => {
    const all = await instances('send-email', 10, { CONTACT_RATE_LIMIT: '5/1h' });
    const answers = await atOnce(all, (i) =>
      Array.from({ length: 2 }, (_, n) =>
        contactCall({ name: `Sender ${i}-${n}` }, '203.0.113.200'),
      ),
    );
    const counted = statuses(answers).sort();
    expect(counted).toEqual([...Array(5).fill(200), ...Array(15).fill(429)]);
    expect(await env.count('contact_messages')).toBe(5);
    await env.smtp.waitForMails(5);
    expect(env.smtp.mails).toHaveLength(5);
  });
});

describe('one consultation slot, booked from many instances at once', () => {
  test('fifty requests for one slot through five instances: exactly one booking, and forty-nine answers that the slot is gone', async () => {
    // A slot the page offers right now (the instances run on the real clock).
    process.env.PAGES_DIR = resolve(ROOT, 'tests/fixtures/built-pages');
    const html = await (await renderPage(new Request('http://127.0.0.1:8888/consultation'))).text();
    delete process.env.PAGES_DIR;
    const slot = [...html.matchAll(/name="slot" value="([^"]+)"/g)].map((m) => m[1])[5]!;

    const all = await instances('book-consultation', 5);
    const url = 'http://127.0.0.1:8888/api/consultation/book';
    const answers = await atOnce(all, (i) =>
      Array.from({ length: 10 }, (_, n) => ({
        url,
        headers: { origin: new URL(url).origin, 'content-type': 'application/json' },
        body: JSON.stringify(
          bookingBody(slot, { name: `Visitor ${i}-${n}`, email: `visitor-${i}-${n}@example.test` }),
        ),
        ip: `198.51.100.${10 * i + n + 1}`,
      })),
    );
    const counted = statuses(answers).sort();
    expect(counted).toEqual([200, ...Array(49).fill(409)]);
    for (const refused of answers.filter((answer) => answer.status === 409)) {
      const body = JSON.parse(refused.body) as { error: string; nearest: { start: string }[] };
      expect(body.error).toBe('That time has just been taken. Please choose another one.');
      expect(body.nearest.length).toBeGreaterThan(0);
      expect(body.nearest.map((near) => near.start)).not.toContain(slot);
    }
    const { rows } = await env.db.query<{ starts_at: Date }>(
      `SELECT starts_at FROM consultation_bookings WHERE cancelled_at IS NULL`,
    );
    expect(rows.map((row) => new Date(row.starts_at).toISOString())).toEqual([
      new Date(slot).toISOString(),
    ]);
    await env.smtp.waitForMails(2);
    expect(env.smtp.mails).toHaveLength(2);
  });
});
