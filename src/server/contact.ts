import { serviceLabel, type ContactMessage } from '../lib/contact';
import { query } from './db';
import { contactRecipient, escapeHtml, sendMail, type Mail } from './mail';
import type { SpamReason } from './spam';

export interface StoredContactMessage extends ContactMessage {
  id: string;
  createdAt: Date;
}

/**
 * Stores a validated message, then e-mails it to the studio. Throws (DatabaseUnavailableError)
 * only when the message could not be stored; a mail failure leaves the row marked unsent for
 * a retry and is reported as `delivered: false`. Spam is stored, marked, and never mailed.
 */
export async function receiveContactMessage(
  input: ContactMessage,
  spam: SpamReason | null = null,
): Promise<{ id: string; delivered: boolean }> {
  const stored = await storeContactMessage(input, spam);
  if (spam) {
    console.info(`Contact message ${stored.id} kept as spam (${spam}) for review, not e-mailed`);
    return { id: stored.id, delivered: false };
  }
  const delivered = await deliverContactMessage(stored);
  return { id: stored.id, delivered };
}

export async function storeContactMessage(
  input: ContactMessage,
  spam: SpamReason | null = null,
): Promise<StoredContactMessage> {
  const [row] = await query<{ id: string; created_at: Date }>(
    `INSERT INTO contact_messages (name, email, service, message, spam_reason)
     VALUES ($1, $2, $3, $4, $5)
     RETURNING id, created_at`,
    [input.name, input.email, input.service || null, input.message, spam],
  );
  return { ...input, id: String(row.id), createdAt: row.created_at };
}

/** Sends one stored message and records the outcome on its row. Never throws. */
export async function deliverContactMessage(stored: StoredContactMessage): Promise<boolean> {
  try {
    await sendMail(composeContactMail(stored));
  } catch (error) {
    const code = transportCode(error);
    console.error(`Contact message ${stored.id} stored but not e-mailed (${code}); kept for retry`);
    await recordAttempt(stored.id, code);
    return false;
  }
  await recordAttempt(stored.id, null);
  return true;
}

async function recordAttempt(id: string, error: string | null): Promise<void> {
  try {
    await query(
      `UPDATE contact_messages
          SET mail_attempts = mail_attempts + 1,
              mail_last_attempt_at = now(),
              mail_sent_at = CASE WHEN $2::text IS NULL THEN now() ELSE mail_sent_at END,
              mail_last_error = $2
        WHERE id = $1`,
      [id, error],
    );
  } catch {
    // The message is stored either way; at worst a retry sends it twice, which beats losing it.
    console.error(`Contact message ${id}: could not record the e-mail attempt`);
  }
}

// Enough to tell a refused recipient from a dead server, and never the message itself.
function transportCode(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  return (
    [code, responseCode]
      .filter((part) => typeof part === 'string' || typeof part === 'number')
      .join(' ') || 'unknown error'
  );
}

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
