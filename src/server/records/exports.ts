import { CONTACT_FIELDS } from '../../shared/contact';
import { isoDay } from '../../shared/time-format';
import { CONSENTS, WAIVER_FIELDS, WAIVER_FIELD_NAMES, isHealthField } from '../../shared/waiver';
import type { Staff } from '../auth/sessions';
import { query } from '../platform/db';
import { WAIVER_SELECT, waiverRecord } from '../waiver/store';
import { logAccess } from './access-log';
import { toCsv } from './csv';
import { download } from './router';
import { Where, type Filters } from './filters';
import { messageRow, MESSAGE_SELECT } from './messages';

/** "2026-11-22 04:15:02": a spreadsheet reads it as a date; the column says it is UTC. */
const utc = (date: Date | string) => new Date(date).toISOString().slice(0, 19).replace('T', ' ');

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

/**
 * The waivers signed in the range, oldest first, one column per field of WAIVER_FIELDS: the
 * health columns only when `health` is chosen (they are opened only then).
 */
export async function waiversCsv(
  filters: Filters,
  health: boolean,
): Promise<{ csv: string; rows: number }> {
  const fields = WAIVER_FIELD_NAMES.filter((name) => health || !isHealthField(name));
  const where = new Where().range({ ...filters, after: undefined }, 'w', 'uuid');
  const rows = await query<Record<string, unknown>>(
    `SELECT x.*, p.sha256 AS pdf_sha256 FROM (${WAIVER_SELECT} ${where.sql}) x
       LEFT JOIN waiver_pdfs p ON p.waiver_id = x.id
      ORDER BY x.created_at, x.id`,
    where.params,
  );
  const header = [
    'Record ID',
    'Signed at (UTC)',
    ...fields.map((name) => WAIVER_FIELDS[name].label),
    ...Object.values(CONSENTS),
    'Waiver text version',
    'Waiver text SHA-256',
    'Records PDF SHA-256',
    'IP address',
    'User agent',
    'Spam',
  ];
  const lines = rows.map((row) => {
    const record = waiverRecord(row, { health });
    return [
      record.id,
      utc(record.createdAt),
      ...fields.map((name) => record[name]),
      ...Object.keys(CONSENTS).map((name) => yesNo(record[name as keyof typeof CONSENTS])),
      record.waiverText.version,
      record.waiverText.sha256,
      (row.pdf_sha256 as string | null) ?? '',
      record.clientIp ?? '',
      record.userAgent ?? '',
      record.spamReason ?? '',
    ];
  });
  return { csv: toCsv(header, lines), rows: lines.length };
}

/** The messages received in the range, oldest first. */
export async function messagesCsv(filters: Filters): Promise<{ csv: string; rows: number }> {
  const where = new Where().range({ ...filters, after: undefined }, 'c', 'bigint');
  const rows = await query<Parameters<typeof messageRow>[0]>(
    `${MESSAGE_SELECT} ${where.sql} ORDER BY c.created_at, c.id`,
    where.params,
  );
  const header = [
    'Message ID',
    'Received at (UTC)',
    CONTACT_FIELDS.name.label,
    CONTACT_FIELDS.email.label,
    'Service Interest',
    CONTACT_FIELDS.message.label,
    'Spam',
    'E-mail to the studio',
  ];
  const lines = rows
    .map(messageRow)
    .map((message) => [
      message.id,
      utc(message.createdAt),
      message.name,
      message.email,
      message.service,
      message.message,
      message.spamReason ?? '',
      message.mail ?? 'not sent (spam)',
    ]);
  return { csv: toCsv(header, lines), rows: lines.length };
}

/** `waivers-2026-11-22.csv`: the day of the export, in the instructor's time zone. */
export function exportName(
  what: 'waivers' | 'messages' | 'bookings',
  tz: string,
  now = new Date(),
): string {
  return `${what}-${isoDay(now, tz)}.csv`;
}

const CSV = 'text/csv; charset=utf-8';

/**
 * An export as the desk answers it: the CSV to save, named for the day, and its line in the
 * access log (the rows, the range and `detail`: counts and choices, never the content).
 */
export async function exportDownload(
  staff: Pick<Staff, 'email'>,
  what: 'waivers' | 'messages' | 'bookings',
  filters: Filters,
  { csv, rows }: { csv: string; rows: number },
  detail: Record<string, unknown> = {},
): Promise<Response> {
  await logAccess(staff, {
    action: `export-${what}`,
    detail: { rows, from: filters.from ?? null, to: filters.to ?? null, ...detail },
  });
  return download(csv, CSV, exportName(what, filters.tz));
}
