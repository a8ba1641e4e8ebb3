import type { ContactMessage } from '../../shared/contact';
import { ok, type Result } from '../../shared/result';
import { query, transaction, type Queryable } from '../platform/db';
import type { Problem } from '../request/responses';
import { keptAsSpam, queue, repeated, type FormOutbox, type Received } from '../request/steps';

export interface StoredContactMessage extends ContactMessage {
  id: string;
  createdAt: Date;
  /** The form's time trap ran (not for a message sent without script). */
  timed: boolean;
}

/** The mails a stored message owes: one to the studio's inbox. */
export const MESSAGE_MAILS = ['contact'] as const;

/**
 * Stores the message and queues its mail in one transaction: the ids of the mails to send now
 * (none for spam, or for a submission id already stored), or 409 for a known submission id
 * sent with another message.
 */
export function storeMessage(
  outbox: FormOutbox<(typeof MESSAGE_MAILS)[number]>,
  message: ContactMessage,
  received: Received,
): Promise<Result<string[], Problem>> {
  return transaction(async (tx) => {
    const id = await insertContactMessage(tx, message, received);
    if (id === undefined) return repeated(tx, 'contact_messages', received);
    if (received.spam) return keptAsSpam('contact', id, received.spam);
    return ok(await queue(tx, outbox, [{ kind: 'contact', ref: id }]));
  });
}

/**
 * Stores a validated message (`storeMessage` has opened the transaction its mail is queued in).
 * Returns the row's id, or `undefined` when its submission id is already stored: a retry or a
 * double click, even one running at the same moment, stores nothing more.
 */
export async function insertContactMessage(
  tx: Queryable,
  message: ContactMessage,
  { submissionId, fingerprint, spam, timed }: Received,
): Promise<string | undefined> {
  const { rows } = await tx.query(
    `INSERT INTO contact_messages
       (name, email, service, message, submission_id, spam_reason, timed, request_sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT ON CONSTRAINT contact_messages_submission_once DO NOTHING
     RETURNING id`,
    [
      message.name,
      message.email,
      message.service || null,
      message.message,
      submissionId,
      spam,
      timed,
      fingerprint,
    ],
  );
  const row = rows[0] as { id: string | number } | undefined;
  return row && String(row.id);
}

/** Reads a stored message back (for composing its e-mail). */
export async function loadContactMessage(id: string): Promise<StoredContactMessage | undefined> {
  const [row] = await query<{
    id: string | number;
    name: string;
    email: string;
    service: string | null;
    message: string;
    submission_id: string | null;
    created_at: Date;
    timed: boolean;
  }>(
    `SELECT id, name, email, service, message, submission_id, created_at, timed
       FROM contact_messages WHERE id = $1`,
    [id],
  );
  if (!row) return undefined;
  return {
    id: String(row.id),
    name: row.name,
    email: row.email,
    service: (row.service ?? '') as ContactMessage['service'],
    message: row.message,
    submissionId: row.submission_id ?? undefined,
    createdAt: row.created_at,
    timed: row.timed,
  };
}
