/**
 * What `npm run restore` does to the database it has just restored, in one transaction, before
 * the site uses it (docs/security.md, "Restoring a backup"). A backup is the site as it was: it
 * would bring back what was ended or taken back since.
 *
 * - **No credential of the desk made before the restore opens anything**: every desk session,
 *   sign-in link and remembered device, every waiver kiosk, and the address of the instructor's
 *   calendar feed are deleted. Any of them may have been ended since the backup (a sign-out, a
 *   lost tablet turned off, a feed address replaced because it leaked), and the backup cannot
 *   tell which. Each is made again on the desk in a minute.
 * - **The visitors' own links stay**: a booking's manage link, a list confirmation or
 *   unsubscribe link, a request to sign again. They sit in mail the site cannot send again with
 *   a new link; revoking them would leave a visitor unable to cancel, or to leave the list.
 *   None of them is taken back by anyone but their holder, so the backup brings none back that
 *   was revoked; a booking cancelled since is cancelled again (below).
 * - **What people took back since the backup is taken back again**, read from the database the
 *   restore replaces: its erasures (`erasure_tombstones`: the ids of what each deleted) are made
 *   again and their tombstones kept; an address that left the list since stays off it; a booking
 *   cancelled since stays cancelled.
 * - Every identity column continues past the highest number the replaced database used, so a
 *   record made after the restore never takes the number of one a tombstone names.
 */
import { deleteRecords } from './erasure';
import { cancelBookingsAgain, cancelledBookings, type CancelledBookings } from '../bookings/kinds';
import { revokeFeedAddress } from '../booking/subscription';
import { logAccess } from './access-log';
import { transaction, type Queryable } from '../platform/db';

export const RESTORE_ACTOR = 'npm run restore';

interface Tombstone {
  id: string;
  erased_at: Date;
  waiver_ids: string[];
  message_ids: string[];
  booking_ids: string[];
  subscriber_ids: string[];
}

/** What the database a restore replaces says was taken back. */
export interface Replaced {
  tombstones: Tombstone[];
  unsubscribed: { id: string; at: Date }[];
  /** Every kind's cancellations (consultations, sessions, class places). */
  cancelled: CancelledBookings;
  /** The highest value of each identity column, by `table.column`. */
  highest: Record<string, string>;
}

export const NOTHING_REPLACED: Replaced = {
  tombstones: [],
  unsubscribed: [],
  cancelled: {},
  highest: {},
};

const rowsOf = async <T>(db: Queryable, sql: string): Promise<T[]> =>
  (await db.query(sql)).rows as T[];

async function tableExists(db: Queryable, table: string): Promise<boolean> {
  const [row] = await rowsOf<{ found: boolean }>(
    db,
    `SELECT to_regclass('public.${table}') IS NOT NULL AS found`,
  );
  return row?.found === true;
}

async function identityColumns(db: Queryable): Promise<{ table: string; column: string }[]> {
  return rowsOf(
    db,
    `SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = 'public' AND is_identity = 'YES'`,
  );
}

/**
 * Reads what the database a restore replaces took back (its tombstones, unsubscribes and
 * cancellations) before anything is restored. A table its version did not have yet reads as
 * none.
 */
export async function readReplaced(db: Queryable): Promise<Replaced> {
  const replaced: Replaced = { tombstones: [], unsubscribed: [], cancelled: {}, highest: {} };
  if (await tableExists(db, 'erasure_tombstones')) {
    replaced.tombstones = await rowsOf(
      db,
      `SELECT id, erased_at, waiver_ids::text[], message_ids::text[], booking_ids::text[],
              subscriber_ids::text[]
         FROM erasure_tombstones ORDER BY erased_at`,
    );
  }
  if (await tableExists(db, 'list_subscribers')) {
    replaced.unsubscribed = await rowsOf(
      db,
      `SELECT id::text, unsubscribed_at AS at FROM list_subscribers
        WHERE unsubscribed_at IS NOT NULL`,
    );
  }
  replaced.cancelled = await cancelledBookings(db);
  for (const { table, column } of await identityColumns(db)) {
    const [row] = await rowsOf<{ top: string | null }>(
      db,
      `SELECT max("${column}")::text AS top FROM "${table}"`,
    );
    if (row?.top) replaced.highest[`${table}.${column}`] = row.top;
  }
  return replaced;
}

/** What `afterRestore` did, in counts. */
export interface AfterRestore {
  sessions: number;
  signInLinks: number;
  devices: number;
  kiosks: number;
  feedAddresses: number;
  erasures: number;
  unsubscribed: number;
  cancelled: number;
}

/** Revokes the desk's credentials and takes back again what `replaced` says was taken back. */
export async function afterRestore(replaced: Replaced): Promise<AfterRestore> {
  return transaction(async (tx) => {
    const count = async (table: string) =>
      Number(
        ((await tx.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0] as { n: number }).n,
      );
    const revoked = {
      sessions: await count('staff_sessions'),
      signInLinks: await count('staff_sign_in_links'),
      devices: await count('staff_devices'),
      kiosks: await count('waiver_kiosks'),
    };
    for (const table of [
      'staff_sessions',
      'staff_sign_in_links',
      'staff_devices',
      'waiver_kiosks',
    ]) {
      await tx.query(`DELETE FROM ${table}`);
    }
    const feedAddresses = await revokeFeedAddress(tx);

    // Only the erasures the backup does not hold were made after it.
    const known = new Set(
      ((await tx.query(`SELECT id FROM erasure_tombstones`)).rows as { id: string }[]).map(
        (row) => row.id,
      ),
    );
    let erasures = 0;
    for (const tombstone of replaced.tombstones) {
      if (known.has(tombstone.id)) continue;
      await deleteRecords(tx, {
        waivers: tombstone.waiver_ids,
        messages: tombstone.message_ids,
        bookings: tombstone.booking_ids,
        subscribers: tombstone.subscriber_ids,
      });
      await tx.query(
        `INSERT INTO erasure_tombstones
           (id, erased_at, waiver_ids, message_ids, booking_ids, subscriber_ids)
         VALUES ($1, $2, $3::uuid[], $4::bigint[], $5::uuid[], $6::bigint[])`,
        [
          tombstone.id,
          tombstone.erased_at,
          tombstone.waiver_ids,
          tombstone.message_ids,
          tombstone.booking_ids,
          tombstone.subscriber_ids,
        ],
      );
      erasures++;
    }

    const unsubscribed = replaced.unsubscribed.length
      ? (
          await tx.query(
            `UPDATE list_subscribers s SET unsubscribed_at = r.at
               FROM unnest($1::bigint[], $2::timestamptz[]) AS r(id, at)
              WHERE s.id = r.id AND (s.unsubscribed_at IS NULL OR s.unsubscribed_at < r.at)
                AND (s.confirmed_at IS NULL OR s.confirmed_at < r.at)
              RETURNING s.id`,
            [
              replaced.unsubscribed.map((row) => row.id),
              replaced.unsubscribed.map((row) => row.at),
            ],
          )
        ).rows.length
      : 0;

    const cancelled = await cancelBookingsAgain(tx, replaced.cancelled);

    for (const { table, column } of await identityColumns(tx)) {
      const top = replaced.highest[`${table}.${column}`];
      if (!top) continue;
      await tx.query(
        `SELECT setval(pg_get_serial_sequence($1, $2),
                GREATEST($3::bigint, (SELECT COALESCE(max("${column}"), 0) FROM "${table}")))`,
        [`public.${table}`, column, top],
      );
    }

    const done: AfterRestore = { ...revoked, feedAddresses, erasures, unsubscribed, cancelled };
    await logAccess({ email: RESTORE_ACTOR }, { action: 'restore', detail: { ...done } }, tx);
    return done;
  });
}
