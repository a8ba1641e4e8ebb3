/**
 * The retention run (functions/retention.ts over src/server/retention/) on a real PostgreSQL
 * seeded across three years, the studio's clock moved to the run's minute: it removes exactly
 * what the schedule says (content/retention.yaml), nothing a kept record still needs, leaves a
 * tombstone with counts and no data, and the desk's preview said beforehand what it would remove.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import runRetention from '../../functions/retention';
import { setClock } from '../../src/server/platform/clock';
import type { RetentionPreview } from '../../src/shared/desk-api';
import { useFunctionEnv } from '../fixtures/function-env';
import { seedWaivers } from '../fixtures/waiver-rows';
import { desk, signIn, STAFF } from './desk';

const env = useFunctionEnv();
/** "Today": a Friday afternoon three years after the first records. */
const TODAY = new Date('2029-06-15T14:00:00Z');
/** The next run: 09:00 UTC the next morning. */
const NEXT_RUN = new Date('2029-06-16T09:00:00Z');

let mailDir: string;

beforeEach(() => {
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('WAIVER_ENCRYPTION_KEY', 'b'.repeat(64));
  mailDir = mkdtempSync(join(tmpdir(), 'retention-mail-'));
  vi.stubEnv('MAIL_OUTBOX_DIR', mailDir);
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
});

afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  rmSync(mailDir, { recursive: true, force: true });
});

const at = (iso: string) => new Date(iso).toISOString();

async function message(name: string, created: string, spam = false): Promise<string> {
  const { rows } = await env.db.query<{ id: string }>(
    `INSERT INTO contact_messages (name, email, message, created_at, spam_reason)
     VALUES ($1, $2, 'Hello', $3, $4) RETURNING id::text`,
    [name, `${name}@example.test`, at(created), spam ? 'honeypot' : null],
  );
  return rows[0]!.id;
}

async function mail(
  kind: string,
  ref: string,
  state: { sent?: string; failed?: string; created: string },
): Promise<string> {
  const { rows } = await env.db.query<{ id: string }>(
    `INSERT INTO mail_outbox (kind, ref, created_at, next_attempt_at, sent_at, failed_at, attempts)
     VALUES ($1, $2, $3, $3, $4, $5, 1) RETURNING id::text`,
    [kind, ref, at(state.created), state.sent && at(state.sent), state.failed && at(state.failed)],
  );
  return rows[0]!.id;
}

async function booking(
  start: string,
  state: { cancelled?: string; spam?: boolean; created?: string } = {},
): Promise<string> {
  const { rows } = await env.db.query<{ id: string }>(
    `INSERT INTO consultation_bookings
       (id, starts_at, ends_at, held, name, email, manage_token_sha256, origin, created_at,
        cancelled_at, spam_reason)
     VALUES ($1, $2::timestamptz, $2::timestamptz + interval '30 minutes',
             tstzrange($2::timestamptz, $2::timestamptz + interval '45 minutes'), 'Booker',
             'booker@example.test', $3, 'http://127.0.0.1:8888', $4, $5, $6)
     RETURNING id::text`,
    [
      randomUUID(),
      at(start),
      randomBytes(32).toString('hex'),
      at(state.created ?? start),
      state.cancelled ? at(state.cancelled) : null,
      state.spam ? 'honeypot' : null,
    ],
  );
  return rows[0]!.id;
}

async function session(
  start: string,
  state: { cancelled?: string; spam?: boolean; created?: string } = {},
): Promise<string> {
  const { rows } = await env.db.query<{ id: string }>(
    `INSERT INTO session_bookings
       (id, session_type, session_title, place, starts_at, ends_at, held, name, email,
        amount_cents, manage_token_sha256, manage_token_sealed, origin, created_at, cancelled_at,
        cancelled_by, spam_reason)
     VALUES ($1, 'private', 'Private Session', 'studio', $2::timestamptz,
             $2::timestamptz + interval '60 minutes',
             tstzrange($2::timestamptz, $2::timestamptz + interval '75 minutes'), 'Booker',
             'booker@example.test', 12000, $3, 'enc2:sealed', 'http://127.0.0.1:8888', $4, $5,
             $6, $7)
     RETURNING id::text`,
    [
      randomUUID(),
      at(start),
      randomBytes(32).toString('hex'),
      at(state.created ?? start),
      state.cancelled ? at(state.cancelled) : null,
      state.cancelled ? 'visitor' : null,
      state.spam ? 'honeypot' : null,
    ],
  );
  return rows[0]!.id;
}

const column = async (sql: string) =>
  (await env.db.query<{ v: string }>(sql)).rows.map((row) => row.v).sort();

const counts = (items: { name: string; count: number }[]) =>
  Object.fromEntries(items.map((item) => [item.name, item.count]));

describe('the retention run', () => {
  test('on three years of records removes exactly what the schedule says, as the desk previewed', async () => {
    // Messages: kept 2 years from arrival (cutoff at the run: 2027-06-16 09:00).
    const m1 = await message('m1', '2026-07-01T10:00Z');
    const m2 = await message('m2', '2027-06-10T10:00Z');
    const m3 = await message('m3', '2027-06-20T10:00Z');
    const m4 = await message('m4', '2029-01-10T10:00Z');
    const m5 = await message('m5', '2028-06-01T10:00Z');
    const m6 = await message('m6', '2029-06-10T10:00Z');
    const m7 = await message('m7', '2027-01-01T10:00Z');
    // Spam, 30 days (cutoff 2029-05-17 09:00).
    await message('s1', '2029-05-01T10:00Z', true);
    await message('s2', '2029-06-01T10:00Z', true);
    await message('s3', '2026-08-01T10:00Z', true);
    // Mail records, a year from sending or giving up (cutoff 2028-06-16 09:00).
    const mails = {
      m1: await mail('contact', m1, { created: '2026-07-01T10:00Z', sent: '2026-07-01T10:01Z' }),
      m2: await mail('contact', m2, { created: '2027-06-10T10:00Z', sent: '2027-06-10T10:01Z' }),
      m3: await mail('contact', m3, { created: '2027-06-20T10:00Z', sent: '2027-06-20T10:01Z' }),
      m4: await mail('contact', m4, { created: '2029-01-10T10:00Z', sent: '2029-01-10T10:01Z' }),
      m5: await mail('contact', m5, { created: '2028-06-01T10:00Z', failed: '2028-06-01T16:00Z' }),
      // Still owed: no mail record goes while it is owed (this one goes with its message).
      m6: await mail('contact', m6, { created: '2029-06-10T10:00Z' }),
      m7: await mail('contact', m7, { created: '2027-01-01T10:00Z' }),
      // About a waiver no longer there.
      orphan: await mail('waiver-records', randomUUID(), {
        created: '2027-01-01T10:00Z',
        sent: '2027-01-01T10:01Z',
      }),
    };
    // Waivers: seven years from the participant's last signing; spam ones 30 days.
    const [w1, w2, sw1, sw2] = await seedWaivers(env.db, [
      {
        email: 'ana@example.test',
        createdAt: new Date('2026-07-01T10:00Z'),
        pdf: Buffer.from('%PDF a'),
      },
      { email: 'bea@example.test', createdAt: new Date('2028-03-01T10:00Z') },
      {
        createdAt: new Date('2029-04-01T10:00Z'),
        spamReason: 'too-fast',
        pdf: Buffer.from('%PDF s'),
      },
      { createdAt: new Date('2029-06-14T10:00Z'), spamReason: 'honeypot' },
    ]);
    const waiverMails = [
      await mail('waiver-records', w1!.id, {
        created: '2026-07-01T10:00Z',
        sent: '2026-07-01T10:01Z',
      }),
      await mail('waiver-participant', w1!.id, {
        created: '2026-07-01T10:00Z',
        sent: '2026-07-01T10:01Z',
      }),
      await mail('waiver-records', w2!.id, {
        created: '2028-03-01T10:00Z',
        sent: '2028-03-01T10:01Z',
      }),
    ];
    // Consultations, two years from their time or a later cancellation (cutoff 2027-06-16
    // 09:00); spam ones 30 days from arrival; the desk's blocks two years from their end.
    await booking('2027-05-01T17:00Z', { created: '2027-04-20T10:00Z' });
    const b2 = await booking('2027-05-02T17:00Z', { cancelled: '2027-07-01T10:00Z' });
    const b3 = await booking('2029-06-20T17:00Z', { created: '2029-06-10T10:00Z' });
    await booking('2029-05-10T17:00Z', { created: '2029-05-01T10:00Z', spam: true });
    const blocks = await env.db.query<{ id: string }>(
      `INSERT INTO consultation_blocks (span, created_by) VALUES
         (tstzrange('2027-01-01T00:00Z', '2027-01-02T00:00Z'), $1),
         (tstzrange('2029-07-01T00:00Z', '2029-07-02T00:00Z'), $1)
       RETURNING id::text`,
      [STAFF],
    );
    // Private and in-home sessions likewise, with their mails' records; spam ones 30 days.
    const s1 = await session('2027-05-03T17:00Z', { created: '2027-04-20T10:00Z' });
    const s2 = await session('2027-05-05T17:00Z', { cancelled: '2027-07-01T10:00Z' });
    const s3 = await session('2029-06-21T17:00Z', { created: '2029-06-10T10:00Z' });
    await session('2029-05-11T17:00Z', { created: '2029-05-01T10:00Z', spam: true });
    const keptSessionMail = await mail('session-visitor', `${s3}:0`, {
      created: '2029-06-10T10:00Z',
      sent: '2029-06-10T10:01Z',
    });
    await mail('session-visitor', `${s1}:0`, {
      created: '2028-12-01T10:00Z',
      sent: '2028-12-01T10:01Z',
    });
    // Class dates (their places and waitlists cascade), two years from the class.
    const classes = await env.db.query<{ id: string }>(
      `INSERT INTO class_dates (id, class_key, title, starts_at, ends_at, capacity, minimum,
                                price_cents)
       VALUES (gen_random_uuid(), 'mat-tu-1800', 'Mat', '2027-05-04T01:00Z', '2027-05-04T02:00Z',
               4, 2, 4500),
              (gen_random_uuid(), 'mat-tu-1800', 'Mat', '2027-06-23T01:00Z', '2027-06-23T02:00Z',
               4, 2, 4500)
       RETURNING id::text`,
    );
    // The desk's sign-in links and sessions: a day from their end (cutoff 2029-06-15 09:00).
    await env.db.query(
      `INSERT INTO staff_sign_in_links (token_sha256, email, created_at, expires_at, used_at) VALUES
         (repeat('1', 64), $1, '2029-06-14T11:45Z', '2029-06-14T12:00Z', NULL),
         (repeat('2', 64), $1, '2029-06-15T12:45Z', '2029-06-15T13:00Z', '2029-06-15T12:50Z')`,
      [STAFF],
    );
    await env.db.query(
      `INSERT INTO staff_sessions (token_sha256, email, created_at, expires_at, revoked_at) VALUES
         (repeat('3', 64), $1, '2029-06-09T20:00Z', '2029-06-10T08:00Z', NULL),
         (repeat('4', 64), $1, '2029-06-14T07:00Z', '2029-06-14T19:00Z', '2029-06-14T08:00Z'),
         (repeat('5', 64), $1, '2029-06-15T08:00Z', '2029-06-15T20:00Z', NULL)`,
      [STAFF],
    );
    // Rate-limit windows, a day (cutoff 2029-06-15 09:00).
    await env.db.query(
      `INSERT INTO rate_limit_hits (bucket, client_hash, window_start) VALUES
         ('contact', 'h1', '2029-06-13T10:00Z'), ('contact', 'h2', '2029-06-15T13:00Z')`,
    );
    // Mail files written to the local folder, seven days (cutoff 2029-06-09 09:00).
    for (const [name, written] of [
      ['outbox-1.eml', '2029-06-01T10:00Z'],
      ['outbox-2.eml', '2029-06-12T10:00Z'],
    ]) {
      writeFileSync(join(mailDir, name), 'Subject: test\n\nA mail.\n');
      utimesSync(join(mailDir, name), new Date(written), new Date(written));
    }

    // The day before: the desk says what the run at 09:00 tomorrow will remove.
    setClock(TODAY);
    const cookie = await signIn(env.smtp);
    const answer = await desk('/api/records/retention', { cookie });
    expect(answer.status).toBe(200);
    const preview = (await answer.json()) as RetentionPreview;
    expect(preview.next).toBe(NEXT_RUN.toISOString());
    const expected = {
      spamMessages: 2,
      spamWaivers: 1,
      mailRecords: 5,
      reSignRequests: 0,
      messages: 3,
      spamBookings: 1,
      consultations: 1,
      consultationBlocks: 1,
      spamSessions: 1,
      bookedSessions: 1,
      classes: 1,
      // The list's rules, on a list with nothing past its time: tests/functions/list.test.ts.
      listPending: 0,
      listUnsubscribed: 0,
      listConfirmations: 0,
      waivers: 0,
      signInLinks: 1,
      sessions: 2,
      rateLimits: 1,
      mailFiles: 1,
    };
    expect(counts(preview.items)).toEqual(expected);
    expect(preview.last).toBeNull();

    // The run, at its minute (Netlify starts it a few seconds late: it works at 09:00 all the same).
    setClock(new Date(NEXT_RUN.getTime() + 4_000));
    const run = await runRetention();
    expect(run.status).toBe(200);
    const { removed } = (await run.json()) as { removed: Record<string, number> };
    expect(removed).toEqual(expected);

    // What is left is exactly what the schedule keeps.
    expect(await column('SELECT name AS v FROM contact_messages')).toEqual(
      ['m3', 'm4', 'm5', 'm6', 's2'].sort(),
    );
    expect(await column('SELECT id::text AS v FROM mail_outbox')).toEqual(
      [mails.m4, mails.m6, ...waiverMails, keptSessionMail].sort(),
    );
    expect(await column('SELECT id::text AS v FROM waivers')).toEqual(
      [w1!.id, w2!.id, sw2!.id].sort(),
    );
    expect(await column('SELECT id::text AS v FROM consultation_bookings')).toEqual(
      [b2, b3].sort(),
    );
    expect(await column('SELECT id::text AS v FROM consultation_blocks')).toEqual([
      blocks.rows[1]!.id,
    ]);
    expect(await column('SELECT id::text AS v FROM session_bookings')).toEqual([s2, s3].sort());
    expect(await column('SELECT id::text AS v FROM class_dates')).toEqual([classes.rows[1]!.id]);
    // The kept waiver keeps its PDF; the spam one's went with it.
    expect(await column('SELECT waiver_id::text AS v FROM waiver_pdfs')).toEqual([w1!.id]);
    expect(await column('SELECT token_sha256 AS v FROM staff_sign_in_links')).not.toContain(
      '1'.repeat(64),
    );
    expect(await column('SELECT token_sha256 AS v FROM staff_sign_in_links')).toContain(
      '2'.repeat(64),
    );
    expect(await column('SELECT token_sha256 AS v FROM staff_sessions')).not.toEqual(
      expect.arrayContaining(['3'.repeat(64)]),
    );
    const sessions = await column('SELECT token_sha256 AS v FROM staff_sessions');
    expect(sessions).toContain('5'.repeat(64));
    expect(sessions).not.toContain('4'.repeat(64));
    expect(await column('SELECT client_hash AS v FROM rate_limit_hits')).not.toContain('h1');
    expect(await column('SELECT client_hash AS v FROM rate_limit_hits')).toContain('h2');
    expect(readdirSync(mailDir)).toEqual(['outbox-2.eml']);

    // The tombstone: what kinds, how many, when; no record's content, no address.
    const { rows: log } = await env.db.query<{ actor: string; detail: Record<string, unknown> }>(
      `SELECT actor, detail FROM records_access_log WHERE action = 'retention'`,
    );
    expect(log).toHaveLength(1);
    expect(log[0]!.actor).toBe('the retention schedule');
    expect(log[0]!.detail.at).toBe(NEXT_RUN.toISOString());
    expect(counts(log[0]!.detail.removed as { name: string; count: number }[])).toEqual(
      Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)),
    );
    const tombstone = JSON.stringify(log);
    for (const personal of ['@example.test', 'Hello', w1!.id, sw1!.id]) {
      expect(tombstone).not.toContain(personal);
    }

    // Run again at the same minute: nothing more goes, and no second tombstone.
    const again = await runRetention();
    expect(Object.values(((await again.json()) as { removed: object }).removed)).toEqual(
      Array(Object.keys(expected).length).fill(0),
    );
    // The desk now shows that run as the last one (signed in again: the session of yesterday
    // afternoon has ended).
    const later = await signIn(env.smtp);
    const after = (await (
      await desk('/api/records/retention', { cookie: later })
    ).json()) as RetentionPreview;
    expect(after.last?.at).toBe(NEXT_RUN.toISOString());
    expect(counts(after.last!.removed)).toEqual(counts(log[0]!.detail.removed as never));
  });

  test('waivers go all together once the participant’s last signing is past the studio’s keeping time, with their PDFs and mails', async () => {
    // The studio keeps waivers a year (its own content/retention.yaml).
    const content = mkdtempSync(join(tmpdir(), 'retention-content-'));
    for (const name of ['site.yaml', 'waiver.md']) {
      copyFileSync(resolve(import.meta.dirname, '../../content', name), join(content, name));
    }
    writeFileSync(join(content, 'retention.yaml'), 'waivers: 1 year\n');
    vi.stubEnv('CONTENT_DIR', content);
    try {
      // Cutoff at the run: 2028-06-16 09:00. Ana last signed before it, Bea after it (so her
      // older waiver stays too), Cy in two spellings of one address.
      const seeded = await seedWaivers(env.db, [
        {
          email: 'ana@example.test',
          createdAt: new Date('2027-05-01T10:00Z'),
          pdf: Buffer.from('%PDF 1'),
        },
        {
          email: 'Ana@Example.test',
          createdAt: new Date('2028-05-01T10:00Z'),
          pdf: Buffer.from('%PDF 2'),
        },
        {
          email: 'bea@example.test',
          createdAt: new Date('2027-01-01T10:00Z'),
          pdf: Buffer.from('%PDF 3'),
        },
        { email: 'bea@example.test', createdAt: new Date('2029-01-01T10:00Z') },
        { email: 'CY@example.test', createdAt: new Date('2026-09-01T10:00Z') },
        { email: 'cy@example.test', createdAt: new Date('2028-07-01T10:00Z') },
      ]);
      const [ana1, ana2, bea1, bea2, cy1, cy2] = seeded.map((waiver) => waiver!.id);
      const sentMails = new Map<string, string>();
      for (const id of [ana1!, ana2!, bea1!]) {
        sentMails.set(
          id,
          await mail('waiver-records', id, {
            created: '2027-01-01T10:00Z',
            sent: '2027-01-01T10:01Z',
          }),
        );
      }

      setClock(TODAY);
      const cookie = await signIn(env.smtp);
      const preview = (await (
        await desk('/api/records/retention', { cookie })
      ).json()) as RetentionPreview;
      expect(counts(preview.items)).toMatchObject({ waivers: 2, mailRecords: 0 });
      expect(preview.items.find((item) => item.name === 'waivers')).toMatchObject({
        keep: '1 year',
        what: ['signed waiver', 'signed waivers'],
      });

      setClock(NEXT_RUN);
      const { removed } = (await (await runRetention()).json()) as {
        removed: Record<string, number>;
      };
      expect(removed).toMatchObject({ waivers: 2, mailRecords: 0 });
      expect(await column('SELECT id::text AS v FROM waivers')).toEqual(
        [bea1!, bea2!, cy1!, cy2!].sort(),
      );
      expect(await column('SELECT waiver_id::text AS v FROM waiver_pdfs')).toEqual([bea1!]);
      // Bea's waiver of 2027 is kept, and so is the record of its mail, however old.
      expect(await column('SELECT id::text AS v FROM mail_outbox')).toEqual([sentMails.get(bea1!)]);
    } finally {
      rmSync(content, { recursive: true, force: true });
    }
  });
});
