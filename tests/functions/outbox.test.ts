import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import sendEmail from '../../functions/send-email';
import retryMail, { config as retryConfig } from '../../functions/retry-mail';
import { outbox as siteOutbox } from '../../src/server/mail-kinds';
import { advanceClock, now, setClock } from '../../src/server/platform/clock';
import { backoffMs, outboxSettings } from '../../src/server/platform/outbox';
import { transaction } from '../../src/server/platform/db';
import { useFunctionEnv } from '../fixtures/function-env';
import { jsonPost } from './harness';

const STUDIO = 'studio-inbox@example.test';
const OUTBOX_ENV = ['OUTBOX_MAX_ATTEMPTS', 'OUTBOX_BASE_DELAY_MS', 'OUTBOX_MAX_DELAY_MS'];

// A database of this file's own and the SMTP server, both emptied before each test.
const env = useFunctionEnv();
const { count } = env;

beforeEach(() => {
  process.env.CONTACT_TO = STUDIO;
  // Bursts from one client are the point here; the rate limit has its own tests.
  process.env.CONTACT_RATE_LIMIT = '10000/1m';
  // The mail server's refusals are expected here; the tests read the rows instead.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
});

afterEach(() => {
  for (const name of OUTBOX_ENV) delete process.env[name];
  delete process.env.CONTACT_RATE_LIMIT;
  vi.restoreAllMocks();
});

function message(n: number, submissionId?: string) {
  return {
    name: `Visitor ${n}`,
    email: `visitor${n}@example.test`,
    service: '',
    message: `Message number ${n}`,
    // The form's invisible anti-spam fields, as a person who took their time sends them.
    website: '',
    fillTimeMs: 12_000,
    ...(submissionId ? { submissionId } : {}),
  };
}

function post(body: unknown): Promise<Response> {
  return sendEmail(jsonPost('http://127.0.0.1:8888/api/send-email', body));
}

interface OutboxRow {
  id: string;
  kind: string;
  ref: string;
  attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  sent_at: Date | null;
  failed_at: Date | null;
  last_error: string | null;
  last_attempt_at: Date | null;
}

async function outbox(): Promise<OutboxRow[]> {
  const { rows } = await env.db.query<OutboxRow>('SELECT * FROM mail_outbox ORDER BY id');
  return rows;
}

// Mails are counted without waiting: a function called here without `waitUntil` sends before it
// answers, and the test SMTP server has a mail in `mails` before it accepts it.

/** Moves the clock past every retry's wait: each mail still owed is due now. */
const due = () =>
  env.db.exec(
    'UPDATE mail_outbox SET next_attempt_at = now() WHERE sent_at IS NULL AND failed_at IS NULL',
  );

function subjects(): string[] {
  return env.smtp.mails.map((mail) => mail.subject ?? '').sort();
}

describe('store first, send later', () => {
  test('submissions made while the mail server is down succeed, and once it is back a drain delivers every mail exactly once', async () => {
    process.env.OUTBOX_BASE_DELAY_MS = '1';
    env.smtp.setFailing(true);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => post(message(n))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(env.smtp.mails).toEqual([]);
    expect(await count('contact_messages')).toBe(8);
    expect((await outbox()).every((row) => row.sent_at === null && row.attempts === 1)).toBe(true);

    env.smtp.setFailing(false);
    await due();
    const summary = await siteOutbox.drain();
    expect(summary).toEqual({ sent: 8, retrying: 0, failed: 0, retired: 0 });
    expect(subjects()).toEqual(
      Array.from({ length: 8 }, (_, n) => `New Inquiry from Visitor ${n}`).sort(),
    );

    // Nothing is owed any more: another drain sends nothing.
    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 0, failed: 0, retired: 0 });
    expect(env.smtp.mails).toHaveLength(8);
    expect((await outbox()).every((row) => row.sent_at instanceof Date && row.attempts === 2)).toBe(
      true,
    );
  });

  test('five drains running at once send each owed mail exactly once', async () => {
    process.env.OUTBOX_BASE_DELAY_MS = '1';
    env.smtp.setFailing(true);
    const answers = await Promise.all(Array.from({ length: 25 }, (_, n) => post(message(n))));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    env.smtp.setFailing(false);
    await due();

    const summaries = await Promise.all(
      Array.from({ length: 5 }, () => siteOutbox.drain({ batch: 3, concurrency: 2 })),
    );
    expect(summaries.reduce((total, summary) => total + summary.sent, 0)).toBe(25);
    expect(env.smtp.mails).toHaveLength(25);
    expect(new Set(subjects()).size).toBe(25);
    const rows = await outbox();
    expect(rows.every((row) => row.sent_at !== null && row.attempts === 2)).toBe(true);
  });

  test('a mail is sent at once when the mail server is up, with a Message-ID naming its outbox row', async () => {
    expect((await post(message(1))).status).toBe(200);
    const [row] = await outbox();
    expect(row).toMatchObject({
      kind: 'contact',
      attempts: 1,
      last_error: null,
      locked_until: null,
    });
    expect(row.sent_at).toBeInstanceOf(Date);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0].messageId).toMatch(new RegExp(`^<outbox-${row.id}@`));
  });

  test('the outbox row holds no message content, only the kind and the id of the message', async () => {
    env.smtp.setFailing(true);
    await post({ ...message(1), message: 'A private note about my back' });
    const { rows } = await env.db.query('SELECT * FROM mail_outbox');
    expect(JSON.stringify(rows)).not.toMatch(/private note|visitor1@example/);
  });

  test('a row held by a sender that died is left alone until its lease runs out, then sent', async () => {
    env.smtp.setFailing(true);
    await post(message(1));
    await env.db.exec(
      `UPDATE mail_outbox SET next_attempt_at = now(), locked_until = now() + interval '1 hour'`,
    );
    env.smtp.setFailing(false);
    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 0, failed: 0, retired: 0 });
    await env.db.exec(`UPDATE mail_outbox SET locked_until = now() - interval '1 second'`);
    expect(await siteOutbox.drain()).toEqual({ sent: 1, retrying: 0, failed: 0, retired: 0 });
    await env.smtp.waitForMails(1);
  });
});

describe('backoff and giving up', () => {
  test('a failed attempt schedules the next one later, twice as late after each further failure', async () => {
    env.smtp.setFailing(true);
    const logged = vi.mocked(console.error);
    logged.mockClear();
    await post(message(1));
    const [first] = await outbox();
    expect(first.attempts).toBe(1);
    expect(first.last_error).toMatch(/451/);
    // The wait it chose, as it says it, and as the row keeps it (from the attempt's start: the
    // attempt itself took some time, so at least the wait).
    expect(logged.mock.calls.flat().join('\n')).toMatch(/attempt 1, next try in 60 s/);
    const waited = (row: OutboxRow) =>
      row.next_attempt_at.getTime() - row.last_attempt_at!.getTime();
    expect(waited(first)).toBeGreaterThanOrEqual(60_000);

    // Not due yet: a drain leaves it alone.
    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 0, failed: 0, retired: 0 });
    expect((await outbox())[0].attempts).toBe(1);

    await env.db.exec(`UPDATE mail_outbox SET next_attempt_at = now()`);
    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 1, failed: 0, retired: 0 });
    const [second] = await outbox();
    expect(second.attempts).toBe(2);
    expect(logged.mock.calls.flat().join('\n')).toMatch(/attempt 2, next try in 120 s/);
    expect(waited(second)).toBeGreaterThanOrEqual(120_000);
  });

  test('the wait doubles from one minute and stops growing at one hour', () => {
    const settings = outboxSettings();
    expect([1, 2, 3, 4].map((n) => backoffMs(n, settings))).toEqual([
      60_000, 120_000, 240_000, 480_000,
    ]);
    expect(backoffMs(7, settings)).toBe(3_600_000);
    expect(backoffMs(50, settings)).toBe(3_600_000);
  });

  test('a mail that keeps failing is marked failed after the last attempt and stays stored with its message', async () => {
    process.env.OUTBOX_MAX_ATTEMPTS = '3';
    process.env.OUTBOX_BASE_DELAY_MS = '1';
    env.smtp.setFailing(true);
    await post(message(1));
    for (let round = 0; round < 4; round += 1) {
      await due();
      await siteOutbox.drain();
    }
    const [row] = await outbox();
    expect(row.attempts).toBe(3);
    expect(row.failed_at).toBeInstanceOf(Date);
    expect(row.sent_at).toBeNull();
    expect(row.last_error).toMatch(/451/);
    expect(await count('contact_messages')).toBe(1);

    // Given up means given up: the mail server coming back does not resend it by itself...
    env.smtp.setFailing(false);
    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 0, failed: 0, retired: 0 });
    // ...and the instructor finds it with the query docs/operations.md gives, and can queue it again.
    const { rows } = await env.db.query<{ name: string; last_error: string }>(
      `SELECT c.name, o.last_error FROM mail_outbox o
         JOIN contact_messages c ON o.kind = 'contact' AND c.id = o.ref::bigint
        WHERE o.failed_at IS NOT NULL`,
    );
    expect(rows).toEqual([{ name: 'Visitor 1', last_error: expect.stringMatching(/451/) }]);
    await env.db.exec(
      `UPDATE mail_outbox SET failed_at = NULL, attempts = 0, next_attempt_at = now()
        WHERE failed_at IS NOT NULL`,
    );
    expect(await siteOutbox.drain()).toEqual({ sent: 1, retrying: 0, failed: 0, retired: 0 });
  });

  test('a mail whose message was deleted is marked failed instead of retried forever', async () => {
    env.smtp.setFailing(true);
    await post(message(1));
    await env.db.exec(
      `DELETE FROM contact_messages; UPDATE mail_outbox SET next_attempt_at = now()`,
    );
    env.smtp.setFailing(false);
    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 0, failed: 1, retired: 0 });
    const [row] = await outbox();
    expect(row.failed_at).toBeInstanceOf(Date);
    expect(row.last_error).toBe('source row missing');
    expect(env.smtp.mails).toEqual([]);
  });
});

describe('idempotency', () => {
  const submissionId = '0b6f7f4e-2a51-4c1e-9a0e-6a4c2f4f9d10';

  test('ten concurrent posts of one submission store one row, send one mail and all answer 200 with the same id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(message(1, submissionId))),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(bodies).toEqual(Array(10).fill({ success: true, id: submissionId }));
    expect(await count('contact_messages')).toBe(1);
    expect(await count('mail_outbox')).toBe(1);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails).toHaveLength(1);
  });

  test('a retry after the mail server refused the first try stores nothing new, and the mail still arrives once', async () => {
    process.env.OUTBOX_BASE_DELAY_MS = '1';
    env.smtp.setFailing(true);
    expect((await post(message(1, submissionId))).status).toBe(200);
    env.smtp.setFailing(false);
    const retry = await post(message(1, submissionId));
    expect(await retry.json()).toEqual({ success: true, id: submissionId });
    expect(await count('contact_messages')).toBe(1);
    await due();
    await siteOutbox.drain();
    expect(env.smtp.mails).toHaveLength(1);
  });

  test('different submission ids are different messages', async () => {
    await post(message(1, submissionId));
    await post(message(1, '5d1c0a7e-3f0b-4d8e-8f43-1b2a7c9e0f11'));
    expect(await count('contact_messages')).toBe(2);
  });

  test('a submission id that is not a UUID gets 422 and stores nothing', async () => {
    const answer = await post(message(1, 'not-a-uuid'));
    expect(answer.status).toBe(422);
    expect(await count('contact_messages')).toBe(0);
  });
});

describe('nothing half-written', () => {
  test('when the mail cannot be queued, the message is not stored either (500, one transaction)', async () => {
    await env.db.exec('ALTER TABLE mail_outbox RENAME TO mail_outbox_away');
    try {
      const answer = await post(message(1));
      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({ success: false, error: expect.any(String) });
      expect(await count('contact_messages')).toBe(0);
    } finally {
      await env.db.exec('ALTER TABLE mail_outbox_away RENAME TO mail_outbox');
    }
  });
});

describe('the retry-mail scheduled function', () => {
  test('runs every five minutes', () => {
    expect(retryConfig.schedule).toBe('*/5 * * * *');
  });

  test('drains the outbox and reports what it did', async () => {
    process.env.OUTBOX_BASE_DELAY_MS = '1';
    env.smtp.setFailing(true);
    await post(message(1));
    await post(message(2));
    env.smtp.setFailing(false);
    await due();
    const answer = await retryMail();
    expect(await answer.json()).toEqual({
      success: true,
      sent: 2,
      retrying: 0,
      failed: 0,
      retired: 0,
    });
    await env.smtp.waitForMails(2);
  });
});

describe("the studio's clock", () => {
  afterEach(() => setClock(undefined));

  test('a mail queued for tomorrow is not sent today, and is sent once the clock reaches tomorrow', async () => {
    const answer = await post(message(1));
    const { id: ref } = (await answer.json()) as { id: string };
    const [{ id: messageId }] = (
      await env.db.query<{ id: string }>(
        'SELECT id FROM contact_messages WHERE submission_id = $1',
        [ref],
      )
    ).rows;
    env.smtp.mails.length = 0;
    const tomorrow = new Date(now().getTime() + 24 * 3_600_000);
    // The contact mail was sent already; queue a second kind of row for the same message to
    // stand for a reminder (the outbox holds one mail per kind and row).
    await env.db.exec(`DELETE FROM mail_outbox`);
    await transaction((tx) =>
      siteOutbox.enqueue(tx, 'contact', String(messageId), { notBefore: tomorrow }),
    );

    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 0, failed: 0, retired: 0 });
    expect(env.smtp.mails).toHaveLength(0);

    advanceClock(24 * 3_600_000 + 1_000);
    expect(await siteOutbox.drain()).toEqual({ sent: 1, retrying: 0, failed: 0, retired: 0 });
    expect(await siteOutbox.drain()).toEqual({ sent: 0, retrying: 0, failed: 0, retired: 0 });
    expect(env.smtp.mails).toHaveLength(1);
  });
});
