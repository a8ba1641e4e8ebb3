import { randomUUID } from 'node:crypto';
import { serviceLabel, type ContactMessage } from '../lib/contact';
import { query } from './db';
import { contactRecipient, escapeHtml, type Mail } from './mail';
import { deliverNow, registerComposer, type AttemptOutcome } from './outbox';
import type { SpamReason } from './spam';

export interface StoredContactMessage extends ContactMessage {
  id: string;
  createdAt: Date;
}

export interface ReceivedContactMessage {
  /** The submission id: the browser's, or one made here when the client sent none. */
  submissionId: string;
  /** This submission had been received before (a retry or a double click): nothing new stored. */
  duplicate: boolean;
  /** The e-mail went out during this request (else it waits in the outbox for a retry). */
  delivered: boolean;
}

/**
 * Stores a validated message and queues its e-mail atomically, then tries to send the
 * e-mail at once. Throws (DatabaseUnavailableError) only when the message could not be stored;
 * once it is stored, a mail failure only leaves the mail in the outbox for a retry.
 * Spam is stored, marked with its reason for the instructor to review, and never queued.
 *
 * Idempotent on `submissionId`: the same id again (even concurrently) stores and sends nothing
 * more and answers like the first time.
 */
export async function receiveContactMessage(
  input: ContactMessage,
  spam: SpamReason | null = null,
): Promise<ReceivedContactMessage> {
  const submissionId = input.submissionId ?? randomUUID();
  // One statement, so one round trip and atomic by itself: the message and its queued mail land
  // together or not at all. A known submission id inserts nothing and queues nothing.
  const [row] = await query<{
    message_id: string | number | null;
    outbox_id: string | number | null;
  }>(
    `WITH message AS (
       INSERT INTO contact_messages (name, email, service, message, submission_id, spam_reason)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT ON CONSTRAINT contact_messages_submission_once DO NOTHING
       RETURNING id
     ), queued AS (
       INSERT INTO mail_outbox (kind, ref)
       SELECT 'contact', id::text FROM message WHERE $6::text IS NULL
       RETURNING id
     )
     SELECT (SELECT id FROM message) AS message_id, (SELECT id FROM queued) AS outbox_id`,
    [input.name, input.email, input.service || null, input.message, submissionId, spam],
  );
  if (row?.message_id == null) return { submissionId, duplicate: true, delivered: false };
  if (spam) {
    console.info(
      `Contact message ${row.message_id} kept as spam (${spam}) for review, not e-mailed`,
    );
    return { submissionId, duplicate: false, delivered: false };
  }
  const { sent } = await deliverNow([String(row.outbox_id)]);
  return { submissionId, duplicate: false, delivered: sent === 1 };
}

/** Reads a stored message back (for composing its e-mail). */
export async function loadContactMessage(id: string): Promise<StoredContactMessage | undefined> {
  const [row] = await query<{
    id: string | number;
    name: string;
    email: string;
    service: string | null;
    message: string;
    created_at: Date;
  }>(`SELECT id, name, email, service, message, created_at FROM contact_messages WHERE id = $1`, [
    id,
  ]);
  if (!row) return undefined;
  return {
    id: String(row.id),
    name: row.name,
    email: row.email,
    service: (row.service ?? '') as ContactMessage['service'],
    message: row.message,
    createdAt: row.created_at,
  };
}

/** Mirrors an outbox attempt onto the message's own mail_* columns, for the instructor. */
async function recordContactAttempt(id: string, outcome: AttemptOutcome): Promise<void> {
  await query(
    `UPDATE contact_messages
        SET mail_attempts = $2,
            mail_last_attempt_at = now(),
            mail_sent_at = CASE WHEN $3::boolean THEN now() ELSE mail_sent_at END,
            mail_last_error = $4
      WHERE id = $1`,
    [id, outcome.attempts, outcome.sent, outcome.error],
  );
}

registerComposer(
  'contact',
  async (ref) => {
    const message = await loadContactMessage(ref);
    return message && composeContactMail(message);
  },
  recordContactAttempt,
);

/** One line of header-safe text: CR, LF and other control characters become spaces. */
export function oneLine(value: string): string {
  return value
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The e-mail the studio receives. The server alone decides recipient, subject and body. */
export function composeContactMail(message: ContactMessage): Mail {
  const name = oneLine(message.name);
  const service = serviceLabel(message.service) ?? 'Not specified';
  const e = {
    name: escapeHtml(name),
    email: escapeHtml(message.email),
    service: escapeHtml(service),
    message: escapeHtml(message.message).replace(/\r\n|\r|\n/g, '<br>'),
  };
  const html = `<!doctype html>
<html>
<body style="font-family: Arial, sans-serif; color: #1e2a23; line-height: 1.5;">
<h2 style="margin: 0 0 16px;">New Inquiry from ${e.name}</h2>
<p><strong>Name:</strong> ${e.name}</p>
<p><strong>Email:</strong> <a href="mailto:${e.email}">${e.email}</a></p>
<p><strong>Service Interest:</strong> ${e.service}</p>
<p><strong>Message:</strong></p>
<p>${e.message}</p>
<hr>
<p style="color: #4a5650; font-size: 14px;">Reply to this e-mail to answer ${e.name} directly: replies go to ${e.email}.</p>
</body>
</html>
`;
  const text = [
    `New Inquiry from ${name}`,
    '',
    `Name: ${name}`,
    `Email: ${message.email}`,
    `Service Interest: ${service}`,
    '',
    'Message:',
    message.message,
    '',
    '--',
    `Reply to this e-mail to answer ${name} directly: replies go to ${message.email}.`,
    '',
  ].join('\n');
  return {
    to: contactRecipient(),
    subject: `New Inquiry from ${name}`,
    replyTo: message.email,
    html,
    text,
  };
}
