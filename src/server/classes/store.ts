/**
 * The classes' tables (migration 0085): class dates, the places in them, and their waitlists.
 *
 * A class is never oversold because Postgres refuses it, not because this code counted: a live
 * place holds a place number from 1 to the class's capacity (a CHECK), and no two live places of
 * one class hold the same number (UNIQUE (class_date_id, place_no)). `takePlace` picks the lowest
 * number it sees free and inserts; when another instance took that number first, the insert
 * fails on the unique constraint (SQLSTATE 23505), its savepoint is rolled back and the next free
 * number is tried, until none is left: then the class is full. One live place per person and class
 * is a unique index too (`class_places_one_per_person`).
 *
 * Every change a calendar must hear of raises a place's `sequence`, and its mails are queued with
 * the ref `<place id>:<sequence>`, as a consultation's are.
 */
import { randomUUID } from 'node:crypto';
import { mailboxOf } from '../../shared/email';
import { newStoredToken, openStoredToken, tokenHash } from '../platform/tokens';
import { sqlNow } from '../platform/clock';
import { clientFingerprint } from '../platform/crypto';
import { query, type Queryable } from '../platform/db';
import { wideNetwork } from '../request/rate-limit';
import type { Received } from '../request/steps';
import type { ClassOccurrence } from './occurrences';
import type { DeskLock } from '../bookings/lock';
import { dayParams, withinDays, type DayRange } from '../bookings/range';
import { paidAtStudioSet } from '../bookings/sql';
import {
  cancelledColumns,
  hasTable,
  type Cancellations,
  type Cancelled,
  type PersonBooking,
  type PersonRecords,
} from '../bookings/person';

export interface ClassDate {
  id: string;
  key: string;
  title: string;
  start: Date;
  end: Date;
  capacity: number;
  minimum: number;
  priceCents: number;
  addedBy: string | null;
  sequence: number;
  cutOffAt: Date | null;
  cancelledAt: Date | null;
  cancelReason: 'minimum' | 'studio' | null;
  cancelledBy: string | null;
  cancelNote: string | null;
  origin?: string;
}

/** A row of class_dates as the database gives it. */
export interface DateRow {
  id: string;
  class_key: string;
  title: string;
  starts_at: Date;
  ends_at: Date;
  capacity: number;
  minimum: number;
  price_cents: number;
  added_by: string | null;
  sequence: number;
  cut_off_at: Date | null;
  cancelled_at: Date | null;
  cancel_reason: 'minimum' | 'studio' | null;
  cancelled_by: string | null;
  cancel_note: string | null;
}

const DATE_COLUMNS = `id, class_key, title, starts_at, ends_at, capacity, minimum, price_cents,
  added_by, sequence, cut_off_at, cancelled_at, cancel_reason, cancelled_by, cancel_note`;

const date = (value: Date | string) => new Date(value);
const maybeDate = (value: Date | string | null) => (value === null ? null : date(value));

function classDate(row: DateRow): ClassDate {
  return {
    id: row.id,
    key: row.class_key,
    title: row.title,
    start: date(row.starts_at),
    end: date(row.ends_at),
    capacity: Number(row.capacity),
    minimum: Number(row.minimum),
    priceCents: Number(row.price_cents),
    addedBy: row.added_by,
    sequence: Number(row.sequence),
    cutOffAt: maybeDate(row.cut_off_at),
    cancelledAt: maybeDate(row.cancelled_at),
    cancelReason: row.cancel_reason,
    cancelledBy: row.cancelled_by,
    cancelNote: row.cancel_note,
  };
}

async function rowsOf<T>(tx: Queryable | undefined, sql: string, params: unknown[]): Promise<T[]> {
  return tx ? ((await tx.query(sql, params)).rows as T[]) : query<T>(sql, params);
}

export async function loadClassDate(id: string, tx?: Queryable): Promise<ClassDate | undefined> {
  const [row] = await rowsOf<DateRow>(tx, `SELECT ${DATE_COLUMNS} FROM class_dates WHERE id = $1`, [
    id,
  ]);
  return row && classDate(row);
}

/** The class date of `key` at `start`, locked for the rest of the transaction. */
export async function lockClassDate(tx: Queryable, id: string): Promise<ClassDate | undefined> {
  const [row] = (
    await tx.query(`SELECT ${DATE_COLUMNS} FROM class_dates WHERE id = $1 FOR UPDATE`, [id])
  ).rows as DateRow[];
  return row && classDate(row);
}

/**
 * The stored date of a timetable class, made now (with what content says of it today) when it is
 * first booked: `created` says whether this call made it. Two instances making it at once both
 * get the one row (the second waits for the first's insert, then reads it).
 */
export async function ensureClassDate(
  tx: Queryable,
  occurrence: ClassOccurrence,
  addedBy: string | null = null,
): Promise<{ date: ClassDate; created: boolean }> {
  const inserted = await tx.query(
    `INSERT INTO class_dates (id, class_key, title, starts_at, ends_at, capacity, minimum,
                              price_cents, added_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, ${sqlNow()}, ${sqlNow()})
     ON CONFLICT ON CONSTRAINT class_dates_once DO NOTHING
     RETURNING id`,
    [
      randomUUID(),
      occurrence.key,
      occurrence.title,
      occurrence.start.toISOString(),
      occurrence.end.toISOString(),
      occurrence.capacity,
      occurrence.minimum,
      occurrence.priceCents,
      addedBy,
    ],
  );
  const [row] = (
    await tx.query(
      `SELECT ${DATE_COLUMNS} FROM class_dates WHERE class_key = $1 AND starts_at = $2`,
      [occurrence.key, occurrence.start.toISOString()],
    )
  ).rows as DateRow[];
  if (!row) throw new Error(`class date ${occurrence.key} at ${occurrence.start.toISOString()}`);
  return { date: classDate(row), created: inserted.rows.length > 0 };
}

/** The stored dates starting in [from, to), each with its live places counted. */
export async function storedDatesBetween(
  from: Date,
  to: Date,
): Promise<(ClassDate & { taken: number; booked: number; waiting: number })[]> {
  const rows = await query<DateRow & { taken: number; booked: number; waiting: number }>(
    `SELECT ${DATE_COLUMNS.replace(/(^|,\s*)([a-z_]+)/g, '$1d.$2')},
            (SELECT count(*)::int FROM class_places s
              WHERE s.class_date_id = d.id AND s.place_no IS NOT NULL) AS taken,
            (SELECT count(*)::int FROM class_places s
              WHERE s.class_date_id = d.id AND s.status = 'booked') AS booked,
            (SELECT count(*)::int FROM class_waitlist w
              WHERE w.class_date_id = d.id AND w.status IN ('waiting', 'offered')) AS waiting
       FROM class_dates d
      WHERE d.starts_at >= $1 AND d.starts_at < $2
      ORDER BY d.starts_at`,
    [from.toISOString(), to.toISOString()],
  );
  return rows.map((row) => ({
    ...classDate(row),
    taken: Number(row.taken),
    booked: Number(row.booked),
    waiting: Number(row.waiting),
  }));
}

/** Places booked (not offered, nor held while a checkout is open) in a class. */
export async function bookedCount(tx: Queryable, dateId: string): Promise<number> {
  const { rows } = await tx.query(
    `SELECT count(*)::int AS n FROM class_places
      WHERE class_date_id = $1 AND status = 'booked' AND payment <> 'held'`,
    [dateId],
  );
  return Number((rows[0] as { n: number }).n);
}

// ---------------------------------------------------------------------------------------------
// Places

export type PlaceStatus = 'offered' | 'booked' | 'cancelled' | 'lapsed' | 'spam';

export interface Place {
  id: string;
  classDateId: string;
  placeNo: number | null;
  status: PlaceStatus;
  payment: 'due' | 'held' | 'paid';
  /** While `payment` is held: when the hold lapses unless Stripe says it is paid. */
  heldUntil: Date | null;
  noShow: boolean;
  name: string;
  email: string;
  sequence: number;
  origin: string;
  timed: boolean;
  submissionId: string | null;
  /** The keyed hash of the fields it was booked with: a repeat must have the same. */
  requestSha256: string | null;
  createdAt: Date;
  cancelledAt: Date | null;
  cancelledBy: string | null;
  cancelNote: string | null;
  link: { sealed: string; sha256: string };
}

interface PlaceRow {
  id: string;
  class_date_id: string;
  place_no: number | null;
  status: PlaceStatus;
  payment: 'due' | 'held' | 'paid';
  held_until: Date | null;
  no_show: boolean;
  name: string;
  email: string;
  sequence: number;
  origin: string;
  timed: boolean;
  submission_id: string | null;
  request_sha256: string | null;
  created_at: Date;
  cancelled_at: Date | null;
  cancelled_by: string | null;
  cancel_note: string | null;
  manage_token_sealed: string;
  manage_token_sha256: string;
}

const PLACE_COLUMNS = `id, class_date_id, place_no, status, payment, held_until, no_show, name, email, sequence,
  origin, timed, submission_id, request_sha256, created_at, cancelled_at, cancelled_by, cancel_note,
  manage_token_sealed, manage_token_sha256`;

function place(row: PlaceRow): Place {
  return {
    id: row.id,
    classDateId: row.class_date_id,
    placeNo: row.place_no === null ? null : Number(row.place_no),
    status: row.status,
    payment: row.payment,
    heldUntil: row.held_until === null ? null : new Date(row.held_until),
    noShow: row.no_show,
    name: row.name,
    email: row.email,
    sequence: Number(row.sequence),
    origin: row.origin,
    timed: row.timed,
    submissionId: row.submission_id,
    requestSha256: row.request_sha256,
    createdAt: date(row.created_at),
    cancelledAt: maybeDate(row.cancelled_at),
    cancelledBy: row.cancelled_by,
    cancelNote: row.cancel_note,
    link: { sealed: row.manage_token_sealed, sha256: row.manage_token_sha256 },
  };
}

/** The field a place's sealed manage token is bound to (with the place's id). */
export const PLACE_TOKEN_FIELD = 'classManageToken';

/** The token of a place's manage link, opened from its row. */
export const placeToken = (s: Pick<Place, 'id' | 'link'>) =>
  openStoredToken(PLACE_TOKEN_FIELD, s.id, s.link);

/** The page of one place: its GET shows it, its POST cancels it. */
export const placeManageUrl = (s: Pick<Place, 'id' | 'link' | 'origin'>) =>
  `${s.origin}/classes/manage?token=${placeToken(s)}`;

export { mailRef, readMailRef } from '../bookings/mail-ref';

export async function loadPlace(id: string, tx?: Queryable): Promise<Place | undefined> {
  const [row] = await rowsOf<PlaceRow>(
    tx,
    `SELECT ${PLACE_COLUMNS} FROM class_places WHERE id = $1`,
    [id],
  );
  return row && place(row);
}

export async function placeByToken(token: string, tx?: Queryable): Promise<Place | undefined> {
  const [row] = await rowsOf<PlaceRow>(
    tx,
    `SELECT ${PLACE_COLUMNS} FROM class_places WHERE manage_token_sha256 = $1${tx ? ' FOR UPDATE' : ''}`,
    [tokenHash(token)],
  );
  return row && place(row);
}

export async function placeBySubmission(submissionId: string): Promise<Place | undefined> {
  const [row] = await query<PlaceRow>(
    `SELECT ${PLACE_COLUMNS} FROM class_places WHERE submission_id = $1`,
    [submissionId],
  );
  return row && place(row);
}

/** The live places of a class (booked, and offered to the waitlist), by place number. */
export async function livePlaces(tx: Queryable, dateId: string): Promise<Place[]> {
  const { rows } = await tx.query(
    `SELECT ${PLACE_COLUMNS} FROM class_places
      WHERE class_date_id = $1 AND place_no IS NOT NULL ORDER BY place_no FOR UPDATE`,
    [dateId],
  );
  return (rows as PlaceRow[]).map(place);
}

export interface Person {
  name: string;
  email: string;
}

/** Why a place could not be taken: the class is full, or this person has a place in it. */
export type NoPlace = 'full' | 'already';

/**
 * Refusals raised inside a booking's transaction (full, already booked, closed). They carry a
 * SQLSTATE (P0001, raise_exception) so the database layer lets them through as refusals, not
 * an outage; the function turns them into the visitor's words.
 */
export class ClassRefusal extends Error {
  readonly code = 'P0001';
  readonly reason: NoPlace | 'closed' | 'price' | 'not-full' | 'waiting' | 'waitlist-closed';
  constructor(reason: ClassRefusal['reason']) {
    super(`class booking refused: ${reason}`);
    this.name = 'ClassRefusal';
    this.reason = reason;
  }
}

/** What the form's steps know of a request: its id, fingerprint, spam verdict, and client. */
export type RequestFacts = Pick<
  Received,
  'submissionId' | 'fingerprint' | 'spam' | 'timed' | 'origin' | 'client'
>;

interface PlaceInsert {
  status: 'offered' | 'booked' | 'spam';
  received?: RequestFacts;
  origin: string;
  /** Paid online: the place is held for the visitor until then, while their checkout is open. */
  heldUntil?: Date;
}

function constraintOf(error: unknown): string | undefined {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (code !== '23505') return undefined;
  return typeof constraint === 'string' ? constraint : '';
}

/**
 * Takes a place in `date` for `person` in the caller's transaction: the place as stored, `undefined`
 * when its submission id is already stored (a retry), or why there is no place. A place taken
 * for spam is kept for the desk and holds no place.
 */
export async function takePlace(
  tx: Queryable,
  date: Pick<ClassDate, 'id' | 'capacity'>,
  person: Person,
  { status, received, origin, heldUntil }: PlaceInsert,
): Promise<Place | NoPlace | undefined> {
  const id = randomUUID();
  const link = newStoredToken(PLACE_TOKEN_FIELD, id);
  const insert = (placeNo: number | null) =>
    tx.query(
      `INSERT INTO class_places
         (id, class_date_id, capacity, place_no, status, name, email, mailbox,
          manage_token_sha256, manage_token_sealed, origin, submission_id, request_sha256,
          client_network, timed, spam_reason, payment, held_until, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
               ${sqlNow()}, ${sqlNow()})
       ON CONFLICT (submission_id) DO NOTHING
       RETURNING ${PLACE_COLUMNS}`,
      [
        id,
        date.id,
        date.capacity,
        placeNo,
        status,
        person.name,
        person.email,
        mailboxOf(person.email),
        link.sha256,
        link.sealed,
        origin,
        received?.submissionId ?? null,
        received?.fingerprint ?? null,
        received ? clientFingerprint(wideNetwork(received.client.ip)) : null,
        received?.timed ?? true,
        received?.spam ?? null,
        heldUntil && status !== 'spam' ? 'held' : 'due',
        heldUntil && status !== 'spam' ? heldUntil.toISOString() : null,
      ],
    );
  const stored = (result: { rows: unknown[] }) => {
    const row = result.rows[0] as PlaceRow | undefined;
    return row && place(row);
  };
  if (status === 'spam') return stored(await insert(null));
  return inFreePlace(tx, date, async (placeNo) => stored(await insert(placeNo)));
}

/**
 * Writes a row into the lowest place number of `date` that looks free (`write`, in a savepoint).
 * Numbers another instance took since they were read are refused by the unique constraint
 * (class_places_one_per_place) and the next is tried, at most one try per place of the class; a
 * number past the capacity is refused by its CHECK. 'already' when the person holds a live place
 * in the class (class_places_one_per_person), 'full' when no number is left.
 */
async function inFreePlace<T>(
  tx: Queryable,
  date: Pick<ClassDate, 'id' | 'capacity'>,
  write: (placeNo: number) => Promise<T>,
): Promise<T | NoPlace> {
  for (let tries = 0; tries <= date.capacity; tries++) {
    const { rows } = await tx.query(
      `SELECT n FROM generate_series(1, $2::int) AS n
        WHERE NOT EXISTS (SELECT 1 FROM class_places WHERE class_date_id = $1 AND place_no = n)
        ORDER BY n LIMIT 1`,
      [date.id, date.capacity],
    );
    const free = (rows[0] as { n: number } | undefined)?.n;
    if (free === undefined) return 'full';
    await tx.query('SAVEPOINT take_place');
    try {
      const result = await write(Number(free));
      await tx.query('RELEASE SAVEPOINT take_place');
      return result;
    } catch (error) {
      const constraint = constraintOf(error);
      if (constraint === undefined) throw error;
      await tx.query('ROLLBACK TO SAVEPOINT take_place');
      if (constraint === 'class_places_one_per_person') return 'already';
      if (constraint !== 'class_places_one_per_place') throw error;
    }
  }
  return 'full';
}

// ---------------------------------------------------------------------------------------------
// Places paid online (payments/webhook.ts): held while the checkout is open, then paid or lapsed

/** A held place's payment succeeded while it is still held: paid. False when it does not. */
export async function markPlacePaid(tx: Queryable, id: string): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE class_places
        SET payment = 'paid', held_until = NULL, paid_at = ${sqlNow()}, paid_by = 'checkout',
            updated_at = ${sqlNow()}
      WHERE id = $1 AND payment = 'held' AND status = 'booked'
  RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

/**
 * A place whose hold lapsed before its payment came gets a number again, paid, when one is free
 * (the constraints decide, as for any booking): 'full' or 'already' when not.
 */
export async function retakePlacePaid(
  tx: Queryable,
  id: string,
  date: Pick<ClassDate, 'id' | 'capacity'>,
): Promise<true | NoPlace> {
  return inFreePlace(tx, date, async (placeNo) => {
    const { rows } = await tx.query(
      `UPDATE class_places
          SET status = 'booked', place_no = $2, payment = 'paid', held_until = NULL,
              paid_at = ${sqlNow()}, paid_by = 'checkout', updated_at = ${sqlNow()}
        WHERE id = $1 AND payment = 'held' AND status = 'lapsed'
    RETURNING id`,
      [id, placeNo],
    );
    if (rows.length === 0) throw new Error(`place ${id} is not a lapsed hold`);
    return true as const;
  });
}

/**
 * Gives back a place held for a payment that will not come (its checkout lapsed,
 * or could not open): its class date's id, or `undefined` when it held none.
 */
export async function dropPlaceHold(tx: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await tx.query(
    `UPDATE class_places SET status = 'lapsed', place_no = NULL, updated_at = ${sqlNow()}
      WHERE id = $1 AND payment = 'held' AND place_no IS NOT NULL
  RETURNING class_date_id`,
    [id],
  );
  return (rows[0] as { class_date_id: string } | undefined)?.class_date_id;
}

/**
 * Gives up a live place in the caller's transaction (its place number freed), raising its
 * sequence: the new sequence, or `undefined` when it was not live (a repeated cancel).
 */
export async function cancelPlaceRow(
  tx: Queryable,
  id: string,
  by: string,
  note: string | null = null,
): Promise<number | undefined> {
  const { rows } = await tx.query(
    `UPDATE class_places
        SET status = 'cancelled', place_no = NULL, cancelled_at = ${sqlNow()}, cancelled_by = $2,
            cancel_note = $3, sequence = sequence + 1, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'booked'
  RETURNING sequence`,
    [id, by, note],
  );
  const row = rows[0] as { sequence: number } | undefined;
  return row && Number(row.sequence);
}

// ---------------------------------------------------------------------------------------------
// What the desk does to a place (bookings/kinds.ts)

/** A booked or cancelled place locked for the desk; none for spam, an offer or a lapsed hold. */
export async function lockPlaceForDesk(tx: Queryable, id: string): Promise<DeskLock | undefined> {
  const { rows } = await tx.query(
    `SELECT s.payment, s.paid_by, s.status <> 'booked' AS gone, d.starts_at > ${sqlNow()} AS to_come
       FROM class_places s JOIN class_dates d ON d.id = s.class_date_id
      WHERE s.id = $1 AND s.spam_reason IS NULL AND s.status IN ('booked', 'cancelled')
        FOR UPDATE OF s`,
    [id],
  );
  const row = rows[0] as
    | { payment: DeskLock['payment']; paid_by: string | null; gone: boolean; to_come: boolean }
    | undefined;
  return row && { payment: row.payment, paidBy: row.paid_by, gone: row.gone, toCome: row.to_come };
}

/** Records a place paid at the studio by `by`, or (`null`) due again. */
export async function setPlacePaidAtStudio(
  tx: Queryable,
  id: string,
  by: string | null,
): Promise<void> {
  await tx.query(`UPDATE class_places SET ${paidAtStudioSet()} WHERE id = $1`, [id, by]);
}

/** Marks a place a no-show (`by` her address), or (`null`) takes the mark back. */
export async function setPlaceNoShow(tx: Queryable, id: string, by: string | null): Promise<void> {
  await tx.query(`UPDATE class_places SET no_show = $2, updated_at = ${sqlNow()} WHERE id = $1`, [
    id,
    by !== null,
  ]);
}

/** The stored date of a class at `start`, locked: its id, and whether it was cancelled. */
export async function lockDateAt(
  tx: Queryable,
  key: string,
  start: Date,
): Promise<{ id: string; cancelledAt: Date | null } | undefined> {
  const { rows } = await tx.query(
    `SELECT id, cancelled_at FROM class_dates WHERE class_key = $1 AND starts_at = $2
        FOR UPDATE`,
    [key, start.toISOString()],
  );
  const row = rows[0] as { id: string; cancelled_at: Date | null } | undefined;
  return row && { id: row.id, cancelledAt: row.cancelled_at };
}

/** The ids of a date's booked places. */
export async function bookedPlaceIds(tx: Queryable, dateId: string): Promise<string[]> {
  const { rows } = await tx.query(
    `SELECT id FROM class_places WHERE class_date_id = $1 AND status = 'booked'`,
    [dateId],
  );
  return (rows as { id: string }[]).map((row) => row.id);
}

/** A class date as the desk lists it. */
export type DeskDateRow = Pick<
  DateRow,
  | 'id'
  | 'class_key'
  | 'title'
  | 'starts_at'
  | 'ends_at'
  | 'capacity'
  | 'minimum'
  | 'price_cents'
  | 'added_by'
  | 'cancelled_at'
  | 'cancel_reason'
>;

/** The stored class dates that end after `from`, by time. */
export function classDatesFrom(from: Date): Promise<DeskDateRow[]> {
  return query<DeskDateRow>(
    `SELECT id, class_key, title, starts_at, ends_at, capacity, minimum, price_cents, added_by,
            cancelled_at, cancel_reason
       FROM class_dates WHERE ends_at > $1 ORDER BY starts_at`,
    [from.toISOString()],
  );
}

/** A place as the desk lists it. */
export interface DeskPlaceRow {
  id: string;
  class_date_id: string;
  status: 'booked' | 'offered' | 'cancelled';
  cancelled_by: string | null;
  name: string;
  email: string;
  payment: 'due' | 'held' | 'paid';
  no_show: boolean;
}

/** The places of these dates, live or cancelled (not spam, not lapsed), by place number. */
export function placesOfDates(dateIds: string[]): Promise<DeskPlaceRow[]> {
  return query<DeskPlaceRow>(
    `SELECT id, class_date_id, status, cancelled_by, name, email, payment, no_show
       FROM class_places
      WHERE class_date_id = ANY($1::uuid[]) AND spam_reason IS NULL
        AND status IN ('booked', 'offered', 'cancelled')
      ORDER BY place_no NULLS LAST, created_at`,
    [dateIds],
  );
}

/** A place's line of the desk's CSV, before its payment and the waiver's phone are added. */
export interface CsvPlaceRow {
  kind: 'place';
  id: string;
  what: string;
  place: 'studio';
  starts_at: Date;
  name: string;
  email: string;
  /** Empty: a place asks no phone. */
  phone: string;
  price_cents: number;
  payment: 'due' | 'held' | 'paid';
  paid_at: Date | null;
  paid_by: string | null;
  cancelled_at: Date | null;
  no_show: boolean;
}

/** The places booked or cancelled (not spam, offers or lapsed holds) whose class starts in the range. */
export function placesForCsv(range: DayRange): Promise<CsvPlaceRow[]> {
  return query<CsvPlaceRow>(
    `SELECT 'place' AS kind, s.id, d.title AS what, 'studio' AS place, d.starts_at, s.name,
            s.email, '' AS phone, d.price_cents, s.payment, s.paid_at, s.paid_by, s.cancelled_at,
            s.no_show
       FROM class_places s JOIN class_dates d ON d.id = s.class_date_id
      WHERE s.spam_reason IS NULL AND s.status IN ('booked', 'cancelled')
        AND ${withinDays('d.starts_at')}`,
    dayParams(range),
  );
}

// ---------------------------------------------------------------------------------------------
// The waitlist

export type WaitStatus = 'waiting' | 'offered' | 'claimed' | 'lapsed' | 'closed' | 'spam' | 'left';

export interface WaitEntry {
  id: string;
  classDateId: string;
  name: string;
  email: string;
  origin: string;
  status: WaitStatus;
  placeId: string | null;
  offerExpiresAt: Date | null;
  claim: { sealed: string; sha256: string } | null;
  /** The link that leaves the waitlist (none for an entry made before there was one). */
  leave: { sealed: string; sha256: string } | null;
}

interface WaitRow {
  id: string;
  class_date_id: string;
  name: string;
  email: string;
  origin: string;
  status: WaitStatus;
  place_id: string | null;
  offer_expires_at: Date | null;
  claim_token_sealed: string | null;
  claim_token_sha256: string | null;
  leave_token_sealed: string | null;
  leave_token_sha256: string | null;
}

const WAIT_COLUMNS = `id, class_date_id, name, email, origin, status, place_id, offer_expires_at,
  claim_token_sealed, claim_token_sha256, leave_token_sealed, leave_token_sha256`;

function waitEntry(row: WaitRow): WaitEntry {
  return {
    id: row.id,
    classDateId: row.class_date_id,
    name: row.name,
    email: row.email,
    origin: row.origin,
    status: row.status,
    placeId: row.place_id,
    offerExpiresAt: maybeDate(row.offer_expires_at),
    claim:
      row.claim_token_sealed && row.claim_token_sha256
        ? { sealed: row.claim_token_sealed, sha256: row.claim_token_sha256 }
        : null,
    leave:
      row.leave_token_sealed && row.leave_token_sha256
        ? { sealed: row.leave_token_sealed, sha256: row.leave_token_sha256 }
        : null,
  };
}

export const LEAVE_TOKEN_FIELD = 'classLeaveToken';

/** The token of the link that leaves the waitlist, or undefined for an entry without one. */
export const leaveToken = (entry: WaitEntry) =>
  entry.leave ? openStoredToken(LEAVE_TOKEN_FIELD, entry.id, entry.leave) : undefined;

export async function waitEntryByLeave(
  token: string,
  tx?: Queryable,
): Promise<WaitEntry | undefined> {
  const [row] = await rowsOf<WaitRow>(
    tx,
    `SELECT ${WAIT_COLUMNS} FROM class_waitlist WHERE leave_token_sha256 = $1${tx ? ' FOR UPDATE' : ''}`,
    [tokenHash(token)],
  );
  return row && waitEntry(row);
}

/** The entry a submission id made (a repeat is answered with its page). */
export async function waitEntryBySubmission(id: string): Promise<WaitEntry | undefined> {
  const [row] = await rowsOf<WaitRow>(
    undefined,
    `SELECT ${WAIT_COLUMNS} FROM class_waitlist WHERE submission_id = $1`,
    [id],
  );
  return row && waitEntry(row);
}

export const CLAIM_TOKEN_FIELD = 'classClaimToken';

export const claimUrl = (entry: WaitEntry) => {
  if (!entry.claim) throw new Error(`waitlist entry ${entry.id} holds no offer`);
  return `${entry.origin}/classes/claim?token=${openStoredToken(CLAIM_TOKEN_FIELD, entry.id, entry.claim)}`;
};

export async function loadWaitEntry(id: string, tx?: Queryable): Promise<WaitEntry | undefined> {
  const [row] = await rowsOf<WaitRow>(
    tx,
    `SELECT ${WAIT_COLUMNS} FROM class_waitlist WHERE id = $1`,
    [id],
  );
  return row && waitEntry(row);
}

export async function waitEntryByClaim(
  token: string,
  tx?: Queryable,
): Promise<WaitEntry | undefined> {
  const [row] = await rowsOf<WaitRow>(
    tx,
    `SELECT ${WAIT_COLUMNS} FROM class_waitlist WHERE claim_token_sha256 = $1${tx ? ' FOR UPDATE' : ''}`,
    [tokenHash(token)],
  );
  return row && waitEntry(row);
}

/** Joins the waitlist in the caller's transaction: the entry's id, `undefined` for a retry. */
export async function joinWaitlist(
  tx: Queryable,
  dateId: string,
  person: Person,
  received: RequestFacts,
): Promise<string | undefined> {
  const id = randomUUID();
  const leave = newStoredToken(LEAVE_TOKEN_FIELD, id);
  try {
    await tx.query('SAVEPOINT join_waitlist');
    const { rows } = await tx.query(
      `INSERT INTO class_waitlist
         (id, class_date_id, name, email, mailbox, origin, submission_id, request_sha256,
          client_network, timed, spam_reason, status, leave_token_sha256, leave_token_sealed,
          created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, ${sqlNow()}, ${sqlNow()})
       ON CONFLICT (submission_id) DO NOTHING
       RETURNING id`,
      [
        id,
        dateId,
        person.name,
        person.email,
        mailboxOf(person.email),
        received.origin,
        received.submissionId,
        received.fingerprint,
        clientFingerprint(wideNetwork(received.client.ip)),
        received.timed,
        received.spam,
        received.spam ? 'spam' : 'waiting',
        leave.sha256,
        leave.sealed,
      ],
    );
    await tx.query('RELEASE SAVEPOINT join_waitlist');
    return (rows[0] as { id: string } | undefined)?.id;
  } catch (error) {
    if (constraintOf(error) !== 'class_waitlist_one_per_person') throw error;
    await tx.query('ROLLBACK TO SAVEPOINT join_waitlist');
    throw new ClassRefusal('waiting');
  }
}

/** The first person waiting for a class, locked (another instance's offer skips them). */
export async function firstWaiting(tx: Queryable, dateId: string): Promise<WaitEntry | undefined> {
  const [row] = (
    await tx.query(
      `SELECT ${WAIT_COLUMNS} FROM class_waitlist
        WHERE class_date_id = $1 AND status = 'waiting'
        ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [dateId],
    )
  ).rows as WaitRow[];
  return row && waitEntry(row);
}

/** Marks an entry offered the place `placeId` until `expiresAt`, with a new claim token. */
export async function markOffered(
  tx: Queryable,
  entryId: string,
  placeId: string,
  expiresAt: Date,
): Promise<void> {
  const claim = newStoredToken(CLAIM_TOKEN_FIELD, entryId);
  await tx.query(
    `UPDATE class_waitlist
        SET status = 'offered', place_id = $2, claim_token_sha256 = $3, claim_token_sealed = $4,
            offered_at = ${sqlNow()}, offer_expires_at = $5, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'waiting'`,
    [entryId, placeId, claim.sha256, claim.sealed, expiresAt.toISOString()],
  );
}

export async function setWaitStatus(
  tx: Queryable,
  entryId: string,
  status: WaitStatus,
): Promise<void> {
  await tx.query(`UPDATE class_waitlist SET status = $2, updated_at = ${sqlNow()} WHERE id = $1`, [
    entryId,
    status,
  ]);
}

/** Gives back a place offered and not claimed. */
export async function lapsePlace(tx: Queryable, placeId: string): Promise<void> {
  await tx.query(
    `UPDATE class_places SET status = 'lapsed', place_no = NULL, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'offered'`,
    [placeId],
  );
}

/**
 * Turns a place offered into a place booked (the claim); paid online, held until `heldUntil`
 * while its checkout is open.
 */
export async function bookOfferedPlace(
  tx: Queryable,
  placeId: string,
  heldUntil?: Date,
): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE class_places
        SET status = 'booked', payment = CASE WHEN $2::timestamptz IS NULL THEN payment ELSE 'held' END,
            held_until = $2, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'offered' RETURNING id`,
    [placeId, heldUntil?.toISOString() ?? null],
  );
  return rows.length > 0;
}

/**
 * A claim whose checkout could not open (Stripe down): the place goes back to being offered, as
 * it was, so the person can claim it again while the offer holds.
 */
export async function unclaimPlace(tx: Queryable, placeId: string): Promise<void> {
  await tx.query(
    `UPDATE class_places SET status = 'offered', payment = 'due', held_until = NULL,
            updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'booked' AND payment = 'held'`,
    [placeId],
  );
  await tx.query(
    `UPDATE class_waitlist SET status = 'offered', updated_at = ${sqlNow()}
      WHERE place_id = $1 AND status = 'claimed'`,
    [placeId],
  );
}

/** A person's class places (one still booked or offered is still live), for an erasure. */
export const placesOfPerson: PersonRecords = {
  async of(db, address, lock) {
    const { rows } = await db.query(
      `SELECT s.id::text, d.starts_at, (s.place_no IS NOT NULL AND d.starts_at > ${sqlNow()}) AS upcoming
         FROM class_places s JOIN class_dates d ON d.id = s.class_date_id
        WHERE lower(s.email) = $1${lock ? ' FOR UPDATE OF s' : ''}`,
      [address],
    );
    return rows as PersonBooking[];
  },
  // A live place deleted is a free place, which the classes' next steps offer to whoever waits
  // (classes/engine.ts, runClassSteps).
  async erase(db, ids) {
    await db.query(`DELETE FROM class_places WHERE id = ANY($1::uuid[])`, [ids]);
  },
};

/**
 * The places a database says were cancelled, and their cancelling again after a restore
 * (records/after-restore.ts): a place booked in the backup and cancelled since is cancelled
 * again, its number freed for the classes' next steps to offer to whoever waits.
 */
export const placesCancelled: Cancellations = {
  async read(db) {
    if (!(await hasTable(db, 'class_places'))) return [];
    const { rows } = await db.query(
      `SELECT id::text, cancelled_at AS at, cancelled_by AS by, cancel_note AS note, sequence
         FROM class_places WHERE status = 'cancelled' AND cancelled_at IS NOT NULL`,
    );
    return rows as Cancelled[];
  },
  async again(tx, cancelled) {
    if (cancelled.length === 0) return 0;
    const { rows } = await tx.query(
      `UPDATE class_places s
          SET status = 'cancelled', place_no = NULL, cancelled_at = r.at, cancelled_by = r.by,
              cancel_note = r.note, sequence = GREATEST(s.sequence, r.sequence),
              updated_at = ${sqlNow()}
         FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::int[])
              AS r(id, at, by, note, sequence)
        WHERE s.id = r.id AND s.status = 'booked'
        RETURNING s.id`,
      cancelledColumns(cancelled),
    );
    return rows.length;
  },
};

/** A person's waitlist entries (one waiting or offered is still live), for an erasure. */
export const waitlistOfPerson: PersonRecords = {
  async of(db, address, lock) {
    const { rows } = await db.query(
      `SELECT w.id::text, d.starts_at,
              (w.status IN ('waiting', 'offered') AND d.starts_at > ${sqlNow()}) AS upcoming
         FROM class_waitlist w JOIN class_dates d ON d.id = w.class_date_id
        WHERE lower(w.email) = $1${lock ? ' FOR UPDATE OF w' : ''}`,
      [address],
    );
    return rows as PersonBooking[];
  },
  async erase(db, ids) {
    await db.query(`DELETE FROM class_waitlist WHERE id = ANY($1::uuid[])`, [ids]);
  },
};

/** The class dates overlapping [the day before `start`, `end`), cancelled ones too. */
export async function datesAround(
  tx: Queryable,
  start: Date,
  end: Date,
): Promise<Pick<DateRow, 'class_key' | 'title' | 'starts_at' | 'ends_at' | 'cancelled_at'>[]> {
  const { rows } = await tx.query(
    `SELECT class_key, title, starts_at, ends_at, cancelled_at FROM class_dates
      WHERE starts_at < $2::timestamptz AND ends_at > $1::timestamptz - interval '1 day'`,
    [start.toISOString(), end.toISOString()],
  );
  return rows as Pick<DateRow, 'class_key' | 'title' | 'starts_at' | 'ends_at' | 'cancelled_at'>[];
}
