import type { DeskAction, LogRow, Page } from '../../shared/desk-api';
import type { Staff } from '../auth/sessions';
import { query, type Queryable } from '../platform/db';
import { pageOf, Where, type Cursor } from './filters';

export interface AccessEntry {
  action: DeskAction;
  recordKind?: 'waiver' | 'message' | 'mail' | 'booking' | 'block' | 'subscriber';
  recordId?: string;
  /** Counts, ids, ranges, choices: never what a record holds. */
  detail?: Record<string, unknown>;
}

/**
 * Records what a staff member did, in the caller's transaction when there is one (an erasure
 * and its log line land together, or neither does).
 */
export async function logAccess(
  staff: Pick<Staff, 'email'>,
  entry: AccessEntry,
  tx?: Queryable,
): Promise<void> {
  const sql = `INSERT INTO records_access_log (actor, action, record_kind, record_id, detail)
               VALUES ($1, $2, $3, $4, $5::jsonb)`;
  const params = [
    staff.email,
    entry.action,
    entry.recordKind ?? null,
    entry.recordId ?? null,
    JSON.stringify(entry.detail ?? {}),
  ];
  if (tx) await tx.query(sql, params);
  else await query(sql, params);
}

/** The access log, newest first, a page at a time. */
export async function accessLog(after?: Cursor): Promise<Page<LogRow>> {
  const where = new Where();
  if (after) where.add('(l.at, l.id) < (?::timestamptz, ?::bigint)', after.at, after.id);
  const rows = await query<{
    id: string | number;
    at: Date;
    at_text: string;
    actor: string;
    action: string;
    record_kind: string | null;
    record_id: string | null;
    detail: Record<string, unknown> | string;
  }>(
    `SELECT l.*, l.at::text AS at_text FROM records_access_log l ${where.sql}
      ORDER BY l.at DESC, l.id DESC LIMIT ${where.param(51)}`,
    where.params,
  );
  return pageOf(
    rows,
    (row) => ({
      id: String(row.id),
      at: new Date(row.at).toISOString(),
      actor: row.actor,
      action: row.action,
      recordKind: row.record_kind,
      recordId: row.record_id,
      detail:
        typeof row.detail === 'string'
          ? (JSON.parse(row.detail) as Record<string, unknown>)
          : row.detail,
    }),
    50,
  );
}
