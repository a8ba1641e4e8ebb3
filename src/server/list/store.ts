/**
 * The Get Notified list: sign-ups, their confirmations, unsubscribes.
 *
 * Double opt-in. A sign-up stores (or finds) the address's row and adds a confirmation, whose
 * mail carries a link valid for 48 hours. Whatever the address's state (new, pending, confirmed,
 * unsubscribed), the visitor gets the same answer and the address gets a confirmation mail and
 * nothing else: a sign-up never confirms, never re-subscribes, and tells nobody whether the
 * address was known. Only the POST of the link's page confirms (a GET never changes anything:
 * mail scanners open links), once; repeating it changes nothing. A confirmation made before the
 * address last unsubscribed never counts: an old link cannot put back an address that left.
 *
 * Consent is recorded on the row: when it was confirmed, from which client network (keyed hash,
 * as the rate limits key it), and the wording of the form the person signed up with.
 */
import { normalEmail } from '../../shared/email';
import type { ListSignUp } from '../../shared/list';
import { LIST_WORDING } from '../../shared/list';
import { sqlNow } from '../platform/clock';
import { clientFingerprint } from '../platform/crypto';
import { query, transaction, type Queryable } from '../platform/db';
import { readSetting } from '../platform/settings';
import { ok, type Result } from '../../shared/result';
import type { Problem } from '../request/responses';
import { keptAsSpam, queue, type FormOutbox, type Received } from '../request/steps';
import { clientNetwork, recipientLimit } from '../request/rate-limit';
import { newStoredToken, tokenHash, type StoredToken } from '../platform/tokens';
import { CONFIRM_TOKEN_FIELD, UNSUBSCRIBE_TOKEN_FIELD } from './tokens';

/** How long a confirmation link works. */
export const CONFIRM_HOURS = 48;

/** The mail a sign-up owes: the confirmation, with its link, to the address typed. */
export const SIGN_UP_MAILS = ['list-confirm'] as const;

/**
 * Stores a sign-up and queues its confirmation mail in one transaction (held back past
 * LIST_CONFIRM_LIMIT): the ids of the mails to send now, none for spam or a repeat.
 */
export function storeSignUp(
  outbox: FormOutbox<(typeof SIGN_UP_MAILS)[number]>,
  signUp: ListSignUp,
  received: Received,
): Promise<Result<string[], Problem>> {
  return transaction(async (tx) => {
    const ref = await insertSignUp(tx, signUp, received);
    if (ref === undefined) return ok([]);
    if (received.spam) return keptAsSpam('list', ref, received.spam);
    const skipped = await holdBackConfirmation(tx, signUp.email);
    return ok(await queue(tx, outbox, [{ kind: 'list-confirm', ref, skipped }]));
  });
}

/**
 * Stores a sign-up in `storeSignUp`'s transaction: the address's row (made, or found whatever its
 * state) and a new confirmation. Returns the mail ref of the confirmation
 * (`<subscriber id>:<confirmation id>`), or `undefined` for a submission id already stored.
 */
export async function insertSignUp(
  tx: Queryable,
  { email }: ListSignUp,
  { submissionId, spam }: Received,
): Promise<string | undefined> {
  const address = email.trim();
  const seen = await tx.query(`SELECT 1 FROM list_confirmations WHERE submission_id = $1`, [
    submissionId,
  ]);
  if (seen.rows.length > 0) return undefined;
  const { rows } = await tx.query(
    `INSERT INTO list_subscribers (email, signed_up_at) VALUES ($1, ${sqlNow()})
     ON CONFLICT (lower(email)) DO UPDATE SET signed_up_at = EXCLUDED.signed_up_at
     RETURNING id, unsubscribe_hash`,
    [address],
  );
  const subscriber = rows[0] as { id: string | number; unsubscribe_hash: string | null };
  const subscriberId = String(subscriber.id);
  if (!subscriber.unsubscribe_hash) {
    const link = newStoredToken(UNSUBSCRIBE_TOKEN_FIELD, subscriberId);
    await tx.query(
      `UPDATE list_subscribers SET unsubscribe_hash = $2, unsubscribe_sealed = $3 WHERE id = $1`,
      [subscriberId, link.sha256, link.sealed],
    );
  }
  // A repeat of the last minute's sign-up (a double click, Back and send again: a post without
  // script has no submission id of its own) stores and mails nothing more; the same answer goes
  // out. One made after the address last left the list does not count as a repeat.
  const recent = await tx.query(
    `SELECT 1 FROM list_confirmations c JOIN list_subscribers s ON s.id = c.subscriber_id
      WHERE c.subscriber_id = $1 AND c.used_at IS NULL AND c.spam_reason IS NULL
        AND c.created_at > ${sqlNow()} - interval '1 minute'
        AND (s.unsubscribed_at IS NULL OR c.created_at > s.unsubscribed_at)`,
    [subscriberId],
  );
  if (recent.rows.length > 0) return undefined;
  const inserted = await tx.query(
    `INSERT INTO list_confirmations
       (subscriber_id, submission_id, wording, spam_reason, created_at, expires_at)
     VALUES ($1, $2, $3, $4, ${sqlNow()}, ${sqlNow()} + make_interval(hours => $5))
     ON CONFLICT ON CONSTRAINT list_confirmations_submission_once DO NOTHING
     RETURNING id`,
    [subscriberId, submissionId, LIST_WORDING, spam, CONFIRM_HOURS],
  );
  const confirmation = inserted.rows[0] as { id: string | number } | undefined;
  if (!confirmation) return undefined;
  const confirmationId = String(confirmation.id);
  const link = newStoredToken(CONFIRM_TOKEN_FIELD, confirmationId);
  await tx.query(`UPDATE list_confirmations SET token_hash = $2, token_sealed = $3 WHERE id = $1`, [
    confirmationId,
    link.sha256,
    link.sealed,
  ]);
  return `${subscriberId}:${confirmationId}`;
}

/**
 * Whether a confirmation mail to `email` is held back: anyone can type anyone's address, so one
 * address gets at most LIST_CONFIRM_LIMIT confirmation mails, counted in the sign-up's
 * transaction. Past it the sign-up is stored and answered as always; its mail is recorded as
 * held back (`recipient-limit`) and never sent.
 */
export function holdBackConfirmation(tx: Queryable, email: string): Promise<string | undefined> {
  return recipientLimit(
    tx,
    'list-confirm-mail',
    normalEmail(email),
    readSetting('LIST_CONFIRM_LIMIT'),
  );
}

export interface Confirmation {
  id: string;
  subscriberId: string;
  email: string;
  createdAt: Date;
  expired: boolean;
  used: boolean;
  /** Made before the address last unsubscribed: it no longer counts. */
  superseded: boolean;
  /** The address is on the list now (confirmed, not unsubscribed). */
  listed: boolean;
  link: StoredToken;
}

interface ConfirmationRow {
  id: string | number;
  subscriber_id: string | number;
  email: string;
  created_at: Date;
  expired: boolean;
  used: boolean;
  superseded: boolean;
  listed: boolean;
  token_sealed: string;
  token_hash: string;
}

// A function: the SQL of the clock is read when the query is made (tests move it).
const CONFIRMATION = () => `
  SELECT c.id, c.subscriber_id, s.email, c.created_at, c.token_sealed, c.token_hash,
         c.expires_at <= ${sqlNow()} AS expired, c.used_at IS NOT NULL AS used,
         (s.unsubscribed_at IS NOT NULL AND c.created_at <= s.unsubscribed_at) AS superseded,
         (s.confirmed_at IS NOT NULL AND s.unsubscribed_at IS NULL) AS listed
    FROM list_confirmations c JOIN list_subscribers s ON s.id = c.subscriber_id`;

function confirmation(row: ConfirmationRow): Confirmation {
  return {
    id: String(row.id),
    subscriberId: String(row.subscriber_id),
    email: row.email,
    createdAt: row.created_at,
    expired: row.expired,
    used: row.used,
    superseded: row.superseded,
    listed: row.listed,
    link: { sealed: row.token_sealed, sha256: row.token_hash },
  };
}

/** The confirmation a link's token opens (a spam sign-up's opens nothing). */
export async function confirmationByToken(token: string): Promise<Confirmation | undefined> {
  const [row] = await query<ConfirmationRow>(
    `${CONFIRMATION()} WHERE c.token_hash = $1 AND c.spam_reason IS NULL`,
    [tokenHash(token)],
  );
  return row && confirmation(row);
}

/** The confirmation a mail ref (`<subscriber>:<confirmation>`) names, for composing its mail. */
export async function confirmationByRef(ref: string): Promise<Confirmation | undefined> {
  const [subscriberId, confirmationId] = ref.split(':');
  if (!/^\d+$/.test(subscriberId ?? '') || !/^\d+$/.test(confirmationId ?? '')) return undefined;
  const [row] = await query<ConfirmationRow>(
    `${CONFIRMATION()} WHERE c.id = $1 AND c.subscriber_id = $2`,
    [confirmationId, subscriberId],
  );
  return row && confirmation(row);
}

export type ConfirmOutcome = 'confirmed' | 'already' | 'expired' | 'unknown';

/**
 * Confirms the address of the confirmation `token` opens, recording when, from where and the
 * wording agreed to. Idempotent: a used link says `already`, changing nothing. An address already
 * on the list keeps its first consent.
 */
export async function confirmSubscription(token: string, ip: string): Promise<ConfirmOutcome> {
  return transaction(async (tx) => {
    const { rows } = await tx.query(
      `${CONFIRMATION()} WHERE c.token_hash = $1 AND c.spam_reason IS NULL FOR UPDATE OF c, s`,
      [tokenHash(token)],
    );
    const row = rows[0] as ConfirmationRow | undefined;
    if (!row) return 'unknown';
    const found = confirmation(row);
    if (found.used) return 'already';
    if (found.expired || found.superseded) return 'expired';
    await tx.query(`UPDATE list_confirmations SET used_at = ${sqlNow()} WHERE id = $1`, [found.id]);
    if (!found.listed) {
      await tx.query(
        `UPDATE list_subscribers
            SET confirmed_at = ${sqlNow()}, confirmed_from = $2, unsubscribed_at = NULL,
                confirmed_wording = (SELECT wording FROM list_confirmations WHERE id = $3)
          WHERE id = $1`,
        [found.subscriberId, clientFingerprint(clientNetwork(ip)), found.id],
      );
    }
    return 'confirmed';
  });
}

export interface Subscriber {
  id: string;
  email: string;
  /** Confirmed and not unsubscribed: announcements go to it. */
  listed: boolean;
  unsubscribed: boolean;
  link: StoredToken;
}

interface SubscriberRow {
  id: string | number;
  email: string;
  listed: boolean;
  unsubscribed: boolean;
  unsubscribe_sealed: string;
  unsubscribe_hash: string;
}

const SUBSCRIBER = `
  SELECT id, email, unsubscribe_sealed, unsubscribe_hash,
         (confirmed_at IS NOT NULL AND unsubscribed_at IS NULL) AS listed,
         unsubscribed_at IS NOT NULL AS unsubscribed
    FROM list_subscribers`;

const subscriber = (row: SubscriberRow): Subscriber => ({
  id: String(row.id),
  email: row.email,
  listed: row.listed,
  unsubscribed: row.unsubscribed,
  link: { sealed: row.unsubscribe_sealed, sha256: row.unsubscribe_hash },
});

export async function subscriberById(id: string): Promise<Subscriber | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  const [row] = await query<SubscriberRow>(`${SUBSCRIBER} WHERE id = $1`, [id]);
  return row && subscriber(row);
}

export async function subscriberByUnsubscribeToken(token: string): Promise<Subscriber | undefined> {
  const [row] = await query<SubscriberRow>(`${SUBSCRIBER} WHERE unsubscribe_hash = $1`, [
    tokenHash(token),
  ]);
  return row && subscriber(row);
}

/** Takes the address off the list at once (the unsubscribe link, or the desk); idempotent. */
export async function unsubscribe(id: string, db: Queryable | undefined = undefined) {
  const sql = `UPDATE list_subscribers SET unsubscribed_at = ${sqlNow()}
                WHERE id = $1 AND unsubscribed_at IS NULL`;
  if (db) await db.query(sql, [id]);
  else await query(sql, [id]);
}
