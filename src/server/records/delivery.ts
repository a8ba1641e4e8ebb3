import type { MailRow, MailState, Undelivered } from '../../shared/desk-api';
import type { Staff } from '../auth/sessions';
import { kindsAbout, mailAbout, mailLabel, outbox } from '../mail-kinds';
import { query } from '../platform/db';
import type { DrainSummary } from '../platform/outbox';
import { logAccess } from './access-log';
import { consultationNames } from '../booking/store';
import { sqlNow } from '../platform/clock';

/** An outbox row's state from its two timestamps, and whether it was held back. */
export function mailState(sentAt: unknown, failedAt: unknown, skipped?: unknown): MailState {
  if (sentAt) return 'sent';
  if (skipped) return 'skipped';
  return failedAt ? 'failed' : 'owed';
}

/**
 * A mail not sent that counts as undelivered: not held back, not retired, and either tried
 * already or due. A mail queued for later (a reminder for next week) is not undelivered before
 * its time.
 */
function undelivered(row = ''): string {
  return `${row}sent_at IS NULL AND ${row}skipped IS NULL AND ${row}retired_at IS NULL
    AND (${row}attempts > 0 OR ${row}failed_at IS NOT NULL OR ${row}next_attempt_at <= ${sqlNow()})`;
}

/** How much mail is not delivered: still being tried, and given up on. */
export async function undeliveredCount(): Promise<Undelivered> {
  const [row] = await query<{ owed: number; failed: number }>(
    `SELECT count(*) FILTER (WHERE failed_at IS NULL)::int AS owed,
            count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed
       FROM mail_outbox WHERE ${undelivered()}`,
  );
  return { owed: row?.owed ?? 0, failed: row?.failed ?? 0 };
}

export const LIST_LIMIT = 200;

/**
 * Every mail not sent (held-back mail aside: nothing is owed there), given-up-on first, then newest first: what it is, whom it is about, how
 * often it was tried and the last error (a transport code, never the mail).
 */
export async function undeliveredMail(): Promise<MailRow[]> {
  const rows = await query<{
    id: string | number;
    kind: string;
    ref: string;
    created_at: Date;
    attempts: number;
    last_error: string | null;
    last_attempt_at: Date | null;
    next_attempt_at: Date | null;
    failed_at: Date | null;
    message_name: string | null;
    waiver_name: string | null;
    subscriber_email: string | null;
  }>(
    `SELECT o.id, o.kind, o.ref, o.created_at, o.attempts, o.last_error, o.last_attempt_at,
            o.next_attempt_at, o.failed_at, c.name AS message_name,
            w.first_name || ' ' || w.last_name AS waiver_name,
            s.email AS subscriber_email
       FROM mail_outbox o
       LEFT JOIN contact_messages c ON o.kind = ANY($1::text[]) AND c.id::text = o.ref
       LEFT JOIN waivers w ON o.kind = ANY($2::text[]) AND w.id::text = split_part(o.ref, ':', 1)
       LEFT JOIN list_subscribers s
         ON o.kind = ANY($4::text[]) AND s.id::text = split_part(o.ref, ':', 1)
      WHERE ${undelivered('o.')}
      ORDER BY o.failed_at IS NULL, o.created_at DESC, o.id DESC
      LIMIT $3`,
    [kindsAbout('message'), kindsAbout('waiver'), LIST_LIMIT, kindsAbout('subscriber')],
  );
  // A booking's name comes from its own store (a consultation's: booking/store.ts).
  const bookingNames = await consultationNames(
    rows.filter((row) => mailAbout(row.kind) === 'booking').map((row) => row.ref.split(':')[0]),
  );
  return rows.map((row) => {
    const record = mailAbout(row.kind);
    const name =
      record === 'waiver'
        ? row.waiver_name
        : record === 'booking'
          ? bookingNames.get(row.ref.split(':')[0])
          : record === 'subscriber'
            ? row.subscriber_email
            : row.message_name;
    const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);
    return {
      id: String(row.id),
      kind: row.kind,
      label: mailLabel(row.kind),
      about: record && name ? { kind: record, id: row.ref.split(':')[0] ?? row.ref, name } : null,
      state: row.failed_at ? 'failed' : 'owed',
      createdAt: new Date(row.created_at).toISOString(),
      attempts: row.attempts,
      lastError: row.last_error,
      lastAttemptAt: iso(row.last_attempt_at),
      nextAttemptAt: row.failed_at ? null : iso(row.next_attempt_at),
    };
  });
}

export const isMailId = (id: string) => /^\d{1,18}$/.test(id);

/** "Send again" for a failed mail, logged; `undefined` when `id` is no failed mail. */
export async function retryFailedMail(id: string, staff: Staff): Promise<DrainSummary | undefined> {
  if (!isMailId(id)) return undefined;
  const outcome = await outbox.sendAgain(id);
  if (outcome) {
    await logAccess(staff, {
      action: 'send-again',
      recordKind: 'mail',
      recordId: id,
      detail: { sent: outcome.sent === 1 },
    });
  }
  return outcome;
}
