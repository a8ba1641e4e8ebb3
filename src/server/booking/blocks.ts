/**
 * Spans the instructor blocks on the desk (a holiday, a day off, an afternoon): no consultation is
 * offered inside one. Bookings already made inside a new block stay; the desk says how many, and
 * she cancels the ones she must.
 */
import type { Interval } from '../../shared/booking/intervals';
import { sqlNow } from '../platform/clock';
import { query, type Queryable } from '../platform/db';

export interface Block extends Interval {
  id: string;
  note: string;
  createdBy: string;
  createdAt: Date;
}

interface Row {
  id: string | number;
  span_from: Date;
  span_to: Date;
  note: string;
  created_by: string;
  created_at: Date;
}

const block = (row: Row): Block => ({
  id: String(row.id),
  start: new Date(row.span_from),
  end: new Date(row.span_to),
  note: row.note,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at),
});

const SELECT = `SELECT id, lower(span) AS span_from, upper(span) AS span_to, note, created_by, created_at
                  FROM consultation_blocks`;

/** Blocks that have not ended yet, soonest first. */
export async function currentBlocks(): Promise<Block[]> {
  const rows = await query<Row>(`${SELECT} WHERE upper(span) > ${sqlNow()} ORDER BY lower(span)`);
  return rows.map(block);
}

/** Stores a block in the caller's transaction; its id and the live bookings inside it. */
export async function addBlock(
  tx: Queryable,
  span: Interval,
  note: string,
  by: string,
): Promise<{ id: string; bookingsInside: number }> {
  const { rows } = await tx.query(
    `INSERT INTO consultation_blocks (span, note, created_by, created_at)
     VALUES (tstzrange($1::timestamptz, $2::timestamptz), $3, $4, ${sqlNow()})
  RETURNING id,
            (SELECT count(*)::int FROM consultation_bookings
              WHERE cancelled_at IS NULL AND spam_reason IS NULL
                AND tstzrange(starts_at, ends_at) && tstzrange($1::timestamptz, $2::timestamptz))
              AS inside`,
    [span.start.toISOString(), span.end.toISOString(), note, by],
  );
  const row = rows[0] as { id: string | number; inside: number };
  return { id: String(row.id), bookingsInside: Number(row.inside) };
}

/** Removes a block in the caller's transaction; whether there was one. */
export async function removeBlock(tx: Queryable, id: string): Promise<boolean> {
  if (!/^\d{1,18}$/.test(id)) return false;
  const { rows } = await tx.query(`DELETE FROM consultation_blocks WHERE id = $1 RETURNING id`, [
    id,
  ]);
  return rows.length > 0;
}
