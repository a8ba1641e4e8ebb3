import { serviceLabel } from '../../shared/contact';
import type { MessageRow, Page } from '../../shared/desk-api';
import type { Staff } from '../auth/sessions';
import { query, transaction } from '../platform/db';
import { outbox, type MailKind } from '../mail-kinds';
import type { DrainSummary } from '../platform/outbox';
import type { SpamReason } from '../../shared/anti-spam';
import { withWaiverStatus } from './participants';
import { logAccess } from './access-log';
import { pageOf, PAGE_SIZE, textOrPhone, Where, type Filters } from './filters';
import { mailState } from './delivery';

export type SpamFilter = 'all' | 'inbox' | 'spam';

export const isMessageId = (id: string) => /^\d{1,18}$/.test(id);

interface MessageDbRow {
  id: string | number;
  created_at: Date;
  at_text: string;
  name: string;
  email: string;
  service: string | null;
  message: string;
  spam_reason: SpamReason | null;
  sent_at: Date | null;
  failed_at: Date | null;
  queued: boolean;
}

/** The mail a message owes: the one to the studio's inbox. */
const MESSAGE_MAIL: MailKind = 'contact';

export const MESSAGE_SELECT = `SELECT c.id, c.created_at, c.created_at::text AS at_text, c.name, c.email,
        c.service, c.message, c.spam_reason, o.sent_at, o.failed_at, o.id IS NOT NULL AS queued
   FROM contact_messages c
   LEFT JOIN mail_outbox o ON o.kind = '${MESSAGE_MAIL}' AND o.ref = c.id::text`;

export function messageRow(row: MessageDbRow): Omit<MessageRow, 'waiverStatus'> {
  return {
    id: String(row.id),
    createdAt: new Date(row.created_at).toISOString(),
    name: row.name,
    email: row.email,
    service: (row.service && serviceLabel(row.service)) ?? '',
    message: row.message,
    spamReason: row.spam_reason,
    mail: row.queued ? mailState(row.sent_at, row.failed_at) : null,
  };
}

/**
 * Messages whose name, e-mail or text contains the search text (a phone number in the text
 * however punctuated), in the range, newest first.
 */
export async function searchMessages(
  filters: Filters,
  spam: SpamFilter,
): Promise<Page<MessageRow>> {
  const where = new Where().range(filters, 'c', 'bigint');
  if (filters.text) {
    where.add(...textOrPhone(filters.text, ['c.name', 'c.email', 'c.message'], ['c.message']));
  }
  if (spam === 'inbox') where.add('c.spam_reason IS NULL');
  if (spam === 'spam') where.add('c.spam_reason IS NOT NULL');
  const rows = await query<MessageDbRow>(
    `${MESSAGE_SELECT} ${where.sql}
      ORDER BY c.created_at DESC, c.id DESC LIMIT ${where.param(PAGE_SIZE + 1)}`,
    where.params,
  );
  const page = pageOf(rows, messageRow);
  return {
    ...page,
    items: await withWaiverStatus(page.items),
  };
}

export interface NotSpam {
  /** The message's mail was queued by this request (false: it already was). */
  queued: boolean;
  delivery?: DrainSummary;
}

/**
 * "Not spam": the message joins the inbox (its spam_reason cleared) and its mail to the studio
 * is queued in the same transaction, then sent at once. The outbox holds one mail per kind and
 * message, so however often this is pressed, the mail is queued, and sent, once.
 */
export async function markNotSpam(id: string, staff: Staff): Promise<NotSpam | undefined> {
  if (!isMessageId(id)) return undefined;
  const outcome = await transaction(async (tx) => {
    const { rows } = await tx.query(
      `SELECT spam_reason FROM contact_messages WHERE id = $1 FOR UPDATE`,
      [id],
    );
    const found = rows[0] as { spam_reason: SpamReason | null } | undefined;
    if (!found) return undefined;
    await tx.query(`UPDATE contact_messages SET spam_reason = NULL WHERE id = $1`, [id]);
    const queued = await outbox.enqueue(tx, MESSAGE_MAIL, id);
    if (found.spam_reason || queued) {
      await logAccess(
        staff,
        {
          action: 'not-spam',
          recordKind: 'message',
          recordId: id,
          detail: { was: found.spam_reason, queued: Boolean(queued) },
        },
        tx,
      );
    }
    return { queued };
  });
  if (!outcome) return undefined;
  if (!outcome.queued) return { queued: false };
  return { queued: true, delivery: await outbox.deliverNow([outcome.queued]) };
}
