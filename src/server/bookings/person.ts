/**
 * What each kind of booking holds about one person (an e-mail address), as an erasure previews
 * and deletes it (bookings/kinds.ts, records/erasure.ts), and what it says was cancelled, as a
 * restore reads it from the database it replaces and cancels again (records/after-restore.ts). Its own file, importing only the
 * database's type, so that the stores which answer it import no feature above them.
 */
import type { Queryable } from '../platform/db';

export interface PersonBooking {
  id: string;
  starts_at: Date;
  /** Still to come, and neither cancelled nor ended (a place or waitlist entry still live). */
  upcoming: boolean;
}

export interface PersonRecords {
  /** A person's records of this kind, locked for the rest of the transaction when `lock`... */
  of(db: Queryable, address: string, lock: boolean): Promise<PersonBooking[]>;
  /** ...and deleted by id (ids of other kinds among them match nothing). */
  erase(db: Queryable, ids: string[]): Promise<void>;
}

/** A cancellation as the database a restore replaces holds it. */
export interface Cancelled {
  id: string;
  at: Date;
  by: string | null;
  note: string | null;
  sequence: number;
}

export interface Cancellations {
  /** The cancelled bookings of this kind `db` holds; none when its version had no such table. */
  read(db: Queryable): Promise<Cancelled[]>;
  /** Cancels again those of `cancelled` still live in this database: how many it cancelled. */
  again(tx: Queryable, cancelled: readonly Cancelled[]): Promise<number>;
}

/** Whether `db` has `table` (a database of an earlier version may not). */
export async function hasTable(db: Queryable, table: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [
    `public.${table}`,
  ]);
  return (rows[0] as { found: boolean } | undefined)?.found === true;
}

/** The arrays of `cancelled`'s fields, in `unnest`'s order: id, at, by, note, sequence. */
export const cancelledColumns = (cancelled: readonly Cancelled[]) => [
  cancelled.map((row) => row.id),
  cancelled.map((row) => row.at),
  cancelled.map((row) => row.by),
  cancelled.map((row) => row.note),
  cancelled.map((row) => row.sequence),
];
