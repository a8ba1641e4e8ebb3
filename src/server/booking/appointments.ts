/**
 * What a consultation and a private or in-home session are alike in: an appointment, one row of
 * its own table with a time held against every other (`held`), a manage link's token, a
 * submission id and a sequence raised by every change. Each store (store.ts, session-store.ts)
 * makes its reads and its move from this, with its table, columns and row.
 */
import { sqlNow } from '../platform/clock';
import { query, type Queryable } from '../platform/db';
import { tokenHash } from '../platform/tokens';
import {
  cancelledColumns,
  hasTable,
  type Cancellations,
  type Cancelled,
  type PersonBooking,
  type PersonRecords,
} from '../bookings/person';

/** What a row holds of its manage link's token: sealed (null before migration 0031), and hashed. */
export interface StoredLink {
  sealed: string | null;
  sha256: string;
}

/** What every appointment is, whatever its kind adds (a consultation's topic, a session's place). */
export interface Appointment {
  id: string;
  start: Date;
  end: Date;
  name: string;
  email: string;
  phone: string;
  sequence: number;
  origin: string;
  createdAt: Date;
  cancelledAt: Date | null;
  /** 'visitor', or the staff address that cancelled it. */
  cancelledBy: string | null;
  cancelNote: string | null;
  spamReason: string | null;
  timed: boolean;
  submissionId: string | null;
  /** The keyed hash of the request that made it (`request_sha256`; none before migration 0070). */
  requestSha256: string | null;
  /** The manage link's token as stored: read it with the store's token function. */
  link: StoredLink;
}

/** The columns of `Appointment` as both tables name them. */
export interface AppointmentRow {
  id: string;
  starts_at: Date;
  ends_at: Date;
  name: string;
  email: string;
  phone: string;
  sequence: number;
  origin: string;
  created_at: Date;
  cancelled_at: Date | null;
  cancelled_by: string | null;
  cancel_note: string | null;
  spam_reason: string | null;
  timed: boolean;
  submission_id: string | null;
  request_sha256: string | null;
  manage_token_sealed: string | null;
  manage_token_sha256: string;
}

/** `AppointmentRow`'s columns. */
const APPOINTMENT_COLUMNS = `id, starts_at, ends_at, name, email, phone, sequence, origin,
  created_at, cancelled_at, cancelled_by, cancel_note, spam_reason, timed, submission_id,
  request_sha256, manage_token_sealed, manage_token_sha256`;

const date = (value: Date | string) => new Date(value);

/** An appointment as read from its row (Postgres may hand a date back as a string). */
function appointmentOf(row: AppointmentRow): Appointment {
  return {
    id: row.id,
    start: date(row.starts_at),
    end: date(row.ends_at),
    name: row.name,
    email: row.email,
    phone: row.phone,
    sequence: Number(row.sequence),
    origin: row.origin,
    createdAt: date(row.created_at),
    cancelledAt: row.cancelled_at && date(row.cancelled_at),
    cancelledBy: row.cancelled_by,
    cancelNote: row.cancel_note,
    spamReason: row.spam_reason,
    timed: row.timed,
    submissionId: row.submission_id,
    requestSha256: row.request_sha256,
    link: { sealed: row.manage_token_sealed, sha256: row.manage_token_sha256 },
  };
}

/** A span as Postgres reads a `tstzrange`, its start in and its end out. */
export const heldRange = (start: Date, end: Date) =>
  `[${start.toISOString()},${end.toISOString()})`;

/** An appointment's new time: when it starts and ends, and the time it holds (its buffers). */
export interface AppointmentTime {
  start: Date;
  end: Date;
  heldStart: Date;
  heldEnd: Date;
}

/**
 * One appointment table's reads, move and erasure: `ownColumns` are the kind's columns beside
 * `AppointmentRow`'s, and `own` reads them into what the kind adds to `Appointment`.
 */
export function appointmentTable<Row extends AppointmentRow, Booked extends Appointment>(
  table: 'consultation_bookings' | 'session_bookings',
  ownColumns: string,
  own: (row: Row) => Omit<Booked, keyof Appointment>,
) {
  const columns = `${APPOINTMENT_COLUMNS}, ${ownColumns}`;
  const read = (row: Row) => ({ ...appointmentOf(row), ...own(row) }) as Booked;
  const one = async (column: string, value: string, tx?: Queryable) => {
    const sql = `SELECT ${columns} FROM ${table} WHERE ${column} = $1`;
    const rows = tx
      ? ((await tx.query(sql, [value])).rows as Row[])
      : await query<Row>(sql, [value]);
    return rows[0] && read(rows[0]);
  };
  return {
    /** Every column a read of it selects (or an INSERT returns). */
    columns,
    /** One of its rows, read. */
    read,
    /** What it holds of a person, for an erasure (bookings/kinds.ts). */
    ofPerson: appointmentsOfPerson(table),
    /** What it says was cancelled, for a restore (records/after-restore.ts). */
    cancellations: appointmentCancellations(table),
    byId: (id: string, tx?: Queryable): Promise<Booked | undefined> => one('id', id, tx),
    /** The one a manage link's token opens, if any. */
    byToken: (token: string): Promise<Booked | undefined> =>
      one('manage_token_sha256', tokenHash(token)),
    /** The one stored under a submission id, if any (in the caller's transaction, `tx`). */
    bySubmission: (submissionId: string, tx?: Queryable): Promise<Booked | undefined> =>
      one('submission_id', submissionId, tx),
    /**
     * Cancels a live one in the caller's transaction, raising its sequence: the new sequence, or
     * `undefined` when it was cancelled already or has ended (a repeated cancel changes nothing
     * more). `past` lets the desk cancel one that has ended, to record that it did not happen.
     */
    cancel: async (
      tx: Queryable,
      id: string,
      by: string,
      { note = null, past = false }: { note?: string | null; past?: boolean } = {},
    ): Promise<number | undefined> => {
      const { rows } = await tx.query(
        `UPDATE ${table}
            SET cancelled_at = ${sqlNow()}, cancelled_by = $2, cancel_note = $3,
                sequence = sequence + 1, updated_at = ${sqlNow()}
          WHERE id = $1 AND cancelled_at IS NULL AND ($4::boolean OR ends_at > ${sqlNow()})
      RETURNING sequence`,
        [id, by, note, past],
      );
      const row = rows[0] as { sequence: number } | undefined;
      return row && Number(row.sequence);
    },
    /**
     * Moves a live one still to come to `time` in the caller's transaction, raising its sequence:
     * the new sequence, or `undefined` when it cannot be moved (cancelled, begun, or already
     * there). A time another holds throws (23P01); its own old time never stands in the way.
     */
    async move(tx: Queryable, id: string, time: AppointmentTime): Promise<number | undefined> {
      const { rows } = await tx.query(
        `UPDATE ${table}
            SET starts_at = $2, ends_at = $3, held = $4::tstzrange, sequence = sequence + 1,
                updated_at = ${sqlNow()}
          WHERE id = $1 AND cancelled_at IS NULL AND starts_at > ${sqlNow()} AND starts_at <> $2
      RETURNING sequence`,
        [
          id,
          time.start.toISOString(),
          time.end.toISOString(),
          heldRange(time.heldStart, time.heldEnd),
        ],
      );
      const row = rows[0] as { sequence: number } | undefined;
      return row && Number(row.sequence);
    },
  };
}

/** What one appointment table says was cancelled, and its cancelling again after a restore. */
function appointmentCancellations(
  table: 'consultation_bookings' | 'session_bookings',
): Cancellations {
  return {
    async read(db) {
      if (!(await hasTable(db, table))) return [];
      const { rows } = await db.query(
        `SELECT id::text, cancelled_at AS at, cancelled_by AS by, cancel_note AS note, sequence
           FROM ${table} WHERE cancelled_at IS NOT NULL`,
      );
      return rows as Cancelled[];
    },
    async again(tx, cancelled) {
      if (cancelled.length === 0) return 0;
      const { rows } = await tx.query(
        `UPDATE ${table} b
            SET cancelled_at = r.at, cancelled_by = r.by, cancel_note = r.note,
                sequence = GREATEST(b.sequence, r.sequence)
           FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::int[])
                AS r(id, at, by, note, sequence)
          WHERE b.id = r.id AND b.cancelled_at IS NULL
          RETURNING b.id`,
        cancelledColumns(cancelled),
      );
      return rows.length;
    },
  };
}

/** What one appointment table holds of a person, for an erasure (bookings/kinds.ts). */
function appointmentsOfPerson(table: 'consultation_bookings' | 'session_bookings'): PersonRecords {
  return {
    async of(db, address, lock) {
      const { rows } = await db.query(
        `SELECT id::text, starts_at, (cancelled_at IS NULL AND starts_at > ${sqlNow()}) AS upcoming
           FROM ${table} WHERE lower(email) = $1${lock ? ' FOR UPDATE' : ''}`,
        [address],
      );
      return rows as PersonBooking[];
    },
    async erase(db, ids) {
      await db.query(`DELETE FROM ${table} WHERE id = ANY($1::uuid[])`, [ids]);
    },
  };
}
