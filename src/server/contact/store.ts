import type { ContactMessage } from '../../shared/contact';
import { query, type Queryable } from '../platform/db';
import type { Received } from '../request/pipeline';

export interface StoredContactMessage extends ContactMessage {
  id: string;
  createdAt: Date;
  /** The form's time trap ran (not for a message sent without script). */
  timed: boolean;
}

/**
 * Stores a validated message (the pipeline has opened the transaction its mail is queued in).
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
