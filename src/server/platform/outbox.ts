/**
 * The mail outbox: store first, send later.
 *
 * A function stores a submission and, in the same transaction, one outbox row per e-mail it owes
 * (`enqueue`). After the commit it tries to send those rows at once (`deliverNow`); whatever
 * the mail server does, the visitor is told the submission is saved. Rows that could not be sent
 * are retried with exponential backoff (the rows that are due: outbox-due.ts) by the scheduled
 * function `functions/retry-mail.ts` (`drain`), and locally by `npm start` on an interval.
 *
 * An outbox row holds no message: only its kind and the id of the row it is about. The mail is
 * composed when it is sent, by its kind's composer, so health data never leaves the waiver row it
 * is stored in. The kinds and their composers are not this file's: the features compose their
 * mail, and one list above them (src/server/mail-kinds.ts) makes the site's outbox with
 * `createOutbox(kinds)`, so a kind is queued only by a name that list knows. The outbox is the one record of
 * every mail: what was sent, what is still owed, what was given up on and why.
 *
 * A mail can stop being owed before it is sent: a reminder for a booking cancelled since. Its
 * composer then answers `nothingToSend(why)`, and the row is retired (`retired_at`): neither sent
 * nor given up on, never due again, kept as the record of why no mail went.
 *
 * Each mail is sent once: a sender claims due rows with one atomic statement (`FOR UPDATE SKIP
 * LOCKED` plus a lease in `locked_until`), so concurrent senders never hold the same row, and
 * only the claim's token can record the outcome. (If a sender dies after the mail server took a
 * message but before recording it, the lease runs out and the mail is sent again: at least once,
 * never lost; the Message-ID stays the same so mail clients can fold the copies.)
 */
import { query, type Queryable } from './db';
import { mailSettings, sendMail, transportCode, type Mail } from './mail';
import { mailDue } from './outbox-due';
import { readSetting } from './settings';
import { sqlNow } from './clock';

/** A composer's answer when the mail is no longer owed; `retired` says why, for the record. */
export interface NothingToSend {
  retired: string;
}

export const nothingToSend = (why: string): NothingToSend => ({ retired: why });

const isNothing = (value: Mail | NothingToSend): value is NothingToSend => 'retired' in value;

/**
 * How a kind of mail is made: composed from the id of its source row; `undefined` when the row
 * is gone (the mail is given up on), `nothingToSend(why)` when it is no longer owed.
 */
export interface MailKindSpec {
  compose(ref: string): Promise<Mail | NothingToSend | undefined>;
}

type Composers = Readonly<Record<string, MailKindSpec>>;

export interface AttemptOutcome {
  /** The mail went out on this attempt. */
  sent: boolean;
  /** The mail was no longer owed: retired without sending. */
  retired?: boolean;
  /** Attempts so far, this one included. */
  attempts: number;
  /** The sender gave up on this mail: it stays stored, marked failed. */
  failed: boolean;
  /** A short transport code when it was not sent, never message content. */
  error: string | null;
}

export interface OutboxSettings {
  /** Attempts before a mail is marked failed (the immediate one included). */
  maxAttempts: number;
  /** Wait after the first failure; doubles with each further failure... */
  baseDelayMs: number;
  /** ...up to this. */
  maxDelayMs: number;
  /** How long a sender holds a claimed row; longer than any send can take. */
  leaseMs: number;
}

export function outboxSettings(): OutboxSettings {
  return {
    maxAttempts: readSetting('OUTBOX_MAX_ATTEMPTS'),
    baseDelayMs: readSetting('OUTBOX_BASE_DELAY_MS'),
    maxDelayMs: readSetting('OUTBOX_MAX_DELAY_MS'),
    leaseMs: readSetting('OUTBOX_LEASE_MS'),
  };
}

/** The wait before the next attempt after `attempts` failed ones: 1, 2, 4 ... minutes, capped. */
export function backoffMs(attempts: number, settings = outboxSettings()): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30));
  return Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** exponent);
}

export interface EnqueueOptions {
  /** Not to be sent before this moment (a reminder); by default, due at once. */
  notBefore?: Date;
  /**
   * Why this mail is held back and never sent (e.g. `recipient-limit`): it is recorded in the
   * outbox all the same, as the one record of every mail.
   */
  skipped?: string;
}

/**
 * Queues one mail inside the caller's transaction. Returns the outbox id, or `undefined` when
 * this mail was already queued (one mail per kind and source row).
 */
async function enqueue(
  tx: Queryable,
  kind: string,
  ref: string,
  options: EnqueueOptions = {},
): Promise<string | undefined> {
  const { rows } = await tx.query(
    `INSERT INTO mail_outbox (kind, ref, next_attempt_at, skipped)
     VALUES ($1, $2, COALESCE($3::timestamptz, ${sqlNow()}), $4)
     ON CONFLICT ON CONSTRAINT mail_outbox_once DO NOTHING
     RETURNING id`,
    [kind, ref, options.notBefore?.toISOString() ?? null, options.skipped ?? null],
  );
  const row = rows[0] as { id: string | number } | undefined;
  return row ? String(row.id) : undefined;
}

/**
 * Queues many mails of one kind inside the caller's transaction, in one statement (a list of a
 * few thousand); each may be due later (`notBefore`, for pacing). Returns how many were queued:
 * one already queued (the same kind and ref) is not queued again.
 */
async function enqueueMany(
  tx: Queryable,
  kind: string,
  mails: readonly { ref: string; notBefore?: Date }[],
): Promise<number> {
  if (mails.length === 0) return 0;
  const { rows } = await tx.query(
    `INSERT INTO mail_outbox (kind, ref, next_attempt_at)
     SELECT $1, m.ref, COALESCE(m.at, ${sqlNow()})
       FROM unnest($2::text[], $3::timestamptz[]) AS m(ref, at)
     ON CONFLICT ON CONSTRAINT mail_outbox_once DO NOTHING
     RETURNING id`,
    [
      kind,
      mails.map((mail) => mail.ref),
      mails.map((mail) => mail.notBefore?.toISOString() ?? null),
    ],
  );
  return rows.length;
}

interface Claimed {
  id: string;
  kind: string;
  ref: string;
  attempts: number;
  claim_token: string;
}

/** Claims due rows (all due, or only `ids`) for one attempt, atomically. */
async function claim(limit: number, ids?: string[]): Promise<Claimed[]> {
  const { leaseMs } = outboxSettings();
  const rows = await query<Claimed>(
    `WITH due AS (
       SELECT id FROM mail_outbox
        WHERE ${mailDue(sqlNow())}
          AND ($2::bigint[] IS NULL OR id = ANY($2::bigint[]))
        ORDER BY next_attempt_at, id
        LIMIT $1
        FOR UPDATE SKIP LOCKED
     )
     UPDATE mail_outbox o
        SET attempts = o.attempts + 1,
            last_attempt_at = ${sqlNow()},
            locked_until = ${sqlNow()} + $3::double precision * interval '1 millisecond',
            claim_token = gen_random_uuid()
       FROM due
      WHERE o.id = due.id
  RETURNING o.id, o.kind, o.ref, o.attempts, o.claim_token`,
    [limit, ids ?? null, leaseMs],
  );
  return rows.map((row) => ({ ...row, id: String(row.id) }));
}

function messageId(id: string): string {
  const domain = /@([^\s>]+)>?\s*$/.exec(mailSettings().from)?.[1] ?? 'localhost';
  return `<outbox-${id}@${domain}>`;
}

/** One attempt at one claimed row; records the outcome. Never throws. */
async function attempt(row: Claimed, kinds: Composers): Promise<AttemptOutcome> {
  const settings = outboxSettings();
  let error: string;
  let giveUp = false;
  try {
    const known = Object.hasOwn(kinds, row.kind);
    const mail = known ? await kinds[row.kind].compose(row.ref) : undefined;
    if (mail && isNothing(mail)) {
      await record(row, () =>
        query(
          `UPDATE mail_outbox SET retired_at = ${sqlNow()}, locked_until = NULL, last_error = $3
            WHERE id = $1 AND claim_token = $2`,
          [row.id, row.claim_token, mail.retired.slice(0, 200)],
        ),
      );
      return { sent: false, retired: true, attempts: row.attempts, failed: false, error: null };
    }
    if (mail) {
      await sendMail({ ...mail, messageId: messageId(row.id), outboxId: row.id });
      await record(row, () =>
        query(
          `UPDATE mail_outbox SET sent_at = ${sqlNow()}, locked_until = NULL, last_error = NULL
            WHERE id = $1 AND claim_token = $2`,
          [row.id, row.claim_token],
        ),
      );
      return { sent: true, attempts: row.attempts, failed: false, error: null };
    }
    error = known ? 'source row missing' : `no composer for ${row.kind}`;
    giveUp = true;
  } catch (caught) {
    error = transportCode(caught);
  }
  const failed = giveUp || row.attempts >= settings.maxAttempts;
  const delay = backoffMs(row.attempts, settings);
  console.error(
    `Mail ${row.id} (${row.kind} ${row.ref}) not sent (${error}); attempt ${row.attempts}` +
      (failed
        ? ', gave up: kept in mail_outbox marked failed'
        : `, next try in ${Math.round(delay / 1000)} s`),
  );
  await record(row, () =>
    query(
      `UPDATE mail_outbox
          SET last_error = $3,
              locked_until = NULL,
              next_attempt_at = ${sqlNow()} + $4::double precision * interval '1 millisecond',
              failed_at = CASE WHEN $5::boolean THEN ${sqlNow()} ELSE NULL END
        WHERE id = $1 AND claim_token = $2`,
      [row.id, row.claim_token, error.slice(0, 200), delay, failed],
    ),
  );
  return { sent: false, attempts: row.attempts, failed, error };
}

async function record(row: Claimed, update: () => Promise<unknown>): Promise<void> {
  try {
    await update();
  } catch {
    // The lease runs out and the row is tried again: a mail may repeat, none is lost.
    console.error(`Mail ${row.id} (${row.kind} ${row.ref}): could not record the attempt`);
  }
}

async function attemptAll(
  rows: Claimed[],
  concurrency: number,
  kinds: Composers,
): Promise<AttemptOutcome[]> {
  const outcomes: AttemptOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++];
      outcomes.push(await attempt(row, kinds));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
  return outcomes;
}

export interface DrainSummary {
  sent: number;
  /** Not sent this time; will be tried again. */
  retrying: number;
  /** Given up on: kept in the outbox, marked failed. */
  failed: number;
  /** No longer owed (a reminder for a booking cancelled since): retired, not sent. */
  retired: number;
}

function summarise(outcomes: AttemptOutcome[], into: DrainSummary): DrainSummary {
  for (const outcome of outcomes) {
    if (outcome.sent) into.sent += 1;
    else if (outcome.retired) into.retired += 1;
    else if (outcome.failed) into.failed += 1;
    else into.retrying += 1;
  }
  return into;
}

async function deliverNow(ids: string[], kinds: Composers): Promise<DrainSummary> {
  const summary: DrainSummary = { sent: 0, retrying: 0, failed: 0, retired: 0 };
  if (ids.length === 0) return summary;
  let rows: Claimed[];
  try {
    rows = await claim(ids.length, ids);
  } catch {
    console.error(`Mail ${ids.join(', ')}: could not claim for sending; left for the retry job`);
    return { ...summary, retrying: ids.length };
  }
  return summarise(await attemptAll(rows, rows.length, kinds), summary);
}

export interface DrainOptions {
  /** Rows claimed per round. */
  batch?: number;
  /** Sends in flight at once. */
  concurrency?: number;
  /** Stops starting new rounds after this long (a scheduled function has 30 s). */
  budgetMs?: number;
}

/** The outbox of a list of mail kinds: `K` is the name of a kind. */
export interface Outbox<K extends string> {
  /**
   * Queues one mail inside the caller's transaction. Returns the outbox id, or `undefined` when
   * this mail was already queued (one mail per kind and source row).
   */
  enqueue(
    tx: Queryable,
    kind: K,
    ref: string,
    options?: EnqueueOptions,
  ): Promise<string | undefined>;
  /** Queues many mails of one kind in one statement (a list's announcement); how many were new. */
  enqueueMany(
    tx: Queryable,
    kind: K,
    mails: readonly { ref: string; notBefore?: Date }[],
  ): Promise<number>;
  /**
   * Sends the given freshly queued rows right away (best effort, after the submission is
   * committed). A failure leaves them due again after the backoff. Never throws.
   */
  deliverNow(ids: string[]): Promise<DrainSummary>;
  /**
   * "Send again" (the records desk): a mail given up on is made due at once with its attempts
   * reset, and tried now. Only a failed, unsent mail qualifies; `undefined` when `id` is not one.
   */
  sendAgain(id: string): Promise<DrainSummary | undefined>;
  /** Sends every due row, round after round, until none is due or the time budget is spent. */
  drain(options?: DrainOptions): Promise<DrainSummary>;
}

/** The outbox that sends the mail of `kinds`, each composed by its own `compose`. */
export function createOutbox<K extends string>(
  kinds: Readonly<Record<K, MailKindSpec>>,
): Outbox<K> {
  return {
    enqueue,
    enqueueMany,
    deliverNow: (ids) => deliverNow(ids, kinds),
    async sendAgain(id) {
      const [row] = await query<{ id: string }>(
        `UPDATE mail_outbox
            SET failed_at = NULL, attempts = 0, next_attempt_at = ${sqlNow()}
          WHERE id = $1 AND sent_at IS NULL AND failed_at IS NOT NULL AND retired_at IS NULL
      RETURNING id`,
        [id],
      );
      return row ? deliverNow([String(row.id)], kinds) : undefined;
    },
    async drain({ batch = 20, concurrency = 4, budgetMs = 20_000 } = {}) {
      const deadline = Date.now() + budgetMs;
      const summary: DrainSummary = { sent: 0, retrying: 0, failed: 0, retired: 0 };
      while (Date.now() < deadline) {
        const rows = await claim(batch);
        if (rows.length === 0) break;
        summarise(await attemptAll(rows, concurrency, kinds), summary);
      }
      return summary;
    },
  };
}
