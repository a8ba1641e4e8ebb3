/**
 * The classes' tables (migration 0085): class dates, the places in them, and their waitlists.
 *
 * A class is never oversold because Postgres refuses it, not because this code counted: a live
 * place holds a seat number from 1 to the class's capacity (a CHECK), and no two live places of
 * one class hold the same number (UNIQUE (class_date_id, seat_no)). `takeSeat` picks the lowest
 * number it sees free and inserts; when another instance took that number first, the insert
 * fails on the unique constraint (SQLSTATE 23505), its savepoint is rolled back and the next free
 * number is tried, until none is left: then the class is full. One live place per person and class
 * is a unique index too (`class_seats_one_per_person`).
 *
 * Every change a calendar must hear of raises a place's `sequence`, and its mails are queued with
 * the ref `<place id>:<sequence>`, as a consultation's are.
 */
import { randomUUID } from 'node:crypto';
import { newStoredToken, openStoredToken, tokenHash } from '../platform/tokens';
import { sqlNow } from '../platform/clock';
import { clientFingerprint } from '../platform/crypto';
import { query, type Queryable } from '../platform/db';
import { wideNetwork } from '../request/rate-limit';
import type { Received } from '../request/steps';
import type { ClassOccurrence } from './occurrences';

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
            (SELECT count(*)::int FROM class_seats s
              WHERE s.class_date_id = d.id AND s.seat_no IS NOT NULL) AS taken,
            (SELECT count(*)::int FROM class_seats s
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
    `SELECT count(*)::int AS n FROM class_seats
      WHERE class_date_id = $1 AND status = 'booked' AND payment <> 'held'`,
    [dateId],
  );
  return Number((rows[0] as { n: number }).n);
}

// ---------------------------------------------------------------------------------------------
// Places

export type SeatStatus = 'offered' | 'booked' | 'cancelled' | 'lapsed' | 'spam';

export interface Seat {
  id: string;
  classDateId: string;
  seatNo: number | null;
  status: SeatStatus;
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
  createdAt: Date;
  cancelledAt: Date | null;
  cancelledBy: string | null;
  cancelNote: string | null;
  link: { sealed: string; sha256: string };
}

interface SeatRow {
  id: string;
  class_date_id: string;
  seat_no: number | null;
  status: SeatStatus;
  payment: 'due' | 'held' | 'paid';
  held_until: Date | null;
  no_show: boolean;
  name: string;
  email: string;
  sequence: number;
  origin: string;
  timed: boolean;
  submission_id: string | null;
  created_at: Date;
  cancelled_at: Date | null;
  cancelled_by: string | null;
  cancel_note: string | null;
  manage_token_sealed: string;
  manage_token_sha256: string;
}

const SEAT_COLUMNS = `id, class_date_id, seat_no, status, payment, held_until, no_show, name, email, sequence,
  origin, timed, submission_id, created_at, cancelled_at, cancelled_by, cancel_note,
  manage_token_sealed, manage_token_sha256`;

function seat(row: SeatRow): Seat {
  return {
    id: row.id,
    classDateId: row.class_date_id,
    seatNo: row.seat_no === null ? null : Number(row.seat_no),
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
    createdAt: date(row.created_at),
    cancelledAt: maybeDate(row.cancelled_at),
    cancelledBy: row.cancelled_by,
    cancelNote: row.cancel_note,
    link: { sealed: row.manage_token_sealed, sha256: row.manage_token_sha256 },
  };
}

/** The field a place's sealed manage token is bound to (with the place's id). */
export const SEAT_TOKEN_FIELD = 'classManageToken';

/** The token of a place's manage link, opened from its row. */
export const seatToken = (s: Pick<Seat, 'id' | 'link'>) =>
  openStoredToken(SEAT_TOKEN_FIELD, s.id, s.link);

/** The page of one place: its GET shows it, its POST cancels it. */
export const seatManageUrl = (s: Pick<Seat, 'id' | 'link' | 'origin'>) =>
  `${s.origin}/classes/manage?token=${seatToken(s)}`;

/** The ref of the outbox mails about one version of a place (or a class date, or an offer). */
export const mailRef = (id: string, sequence: number) => `${id}:${sequence}`;

export function readMailRef(ref: string): { id: string; sequence: number } | undefined {
  const match = /^([0-9a-f-]{36}):(\d{1,9})$/i.exec(ref);
  return match ? { id: match[1].toLowerCase(), sequence: Number(match[2]) } : undefined;
}

export async function loadSeat(id: string, tx?: Queryable): Promise<Seat | undefined> {
  const [row] = await rowsOf<SeatRow>(tx, `SELECT ${SEAT_COLUMNS} FROM class_seats WHERE id = $1`, [
    id,
  ]);
  return row && seat(row);
}

export async function seatByToken(token: string, tx?: Queryable): Promise<Seat | undefined> {
  const [row] = await rowsOf<SeatRow>(
    tx,
    `SELECT ${SEAT_COLUMNS} FROM class_seats WHERE manage_token_sha256 = $1${tx ? ' FOR UPDATE' : ''}`,
    [tokenHash(token)],
  );
  return row && seat(row);
}

export async function seatBySubmission(submissionId: string): Promise<Seat | undefined> {
  const [row] = await query<SeatRow>(
    `SELECT ${SEAT_COLUMNS} FROM class_seats WHERE submission_id = $1`,
    [submissionId],
  );
  return row && seat(row);
}

/** The live places of a class (booked, and offered to the waitlist), by seat number. */
export async function liveSeats(tx: Queryable, dateId: string): Promise<Seat[]> {
  const { rows } = await tx.query(
    `SELECT ${SEAT_COLUMNS} FROM class_seats
      WHERE class_date_id = $1 AND seat_no IS NOT NULL ORDER BY seat_no FOR UPDATE`,
    [dateId],
  );
  return (rows as SeatRow[]).map(seat);
}

/** One mailbox however it is written: any case, without a `+tag`. */
export const mailboxOf = (email: string) =>
  email
    .trim()
    .toLowerCase()
    .replace(/\+[^@]*@/, '@');

export interface Person {
  name: string;
  email: string;
}

/** Why a place could not be taken: the class is full, or this person has a place in it. */
export type NoSeat = 'full' | 'already';

/**
 * Refusals raised inside a booking's transaction (full, already booked, closed). They carry a
 * SQLSTATE (P0001, raise_exception) so the database layer lets them through as refusals, not
 * an outage; the function turns them into the visitor's words.
 */
export class ClassRefusal extends Error {
  readonly code = 'P0001';
  readonly reason: NoSeat | 'closed' | 'price' | 'not-full' | 'waiting' | 'waitlist-closed';
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

interface SeatInsert {
  status: 'offered' | 'booked' | 'spam';
  received?: RequestFacts;
  origin: string;
  /** Paid online: the seat is held for the visitor until then, while their checkout is open. */
  heldUntil?: Date;
}

function constraintOf(error: unknown): string | undefined {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (code !== '23505') return undefined;
  return typeof constraint === 'string' ? constraint : '';
}

/**
 * Takes a place in `date` for `person` in the caller's transaction: the place's id, `undefined`
 * when its submission id is already stored (a retry), or why there is no place. A place taken
 * for spam is kept for the desk and holds no seat.
 */
export async function takeSeat(
  tx: Queryable,
  date: Pick<ClassDate, 'id' | 'capacity'>,
  person: Person,
  { status, received, origin, heldUntil }: SeatInsert,
): Promise<{ id: string } | NoSeat | undefined> {
  const id = randomUUID();
  const link = newStoredToken(SEAT_TOKEN_FIELD, id);
  const insert = (seatNo: number | null) =>
    tx.query(
      `INSERT INTO class_seats
         (id, class_date_id, capacity, seat_no, status, name, email, mailbox,
          manage_token_sha256, manage_token_sealed, origin, submission_id, request_sha256,
          client_network, timed, spam_reason, payment, held_until, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
               ${sqlNow()}, ${sqlNow()})
       ON CONFLICT (submission_id) DO NOTHING
       RETURNING id`,
      [
        id,
        date.id,
        date.capacity,
        seatNo,
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
  const stored = (result: { rows: unknown[] }) => result.rows[0] as { id: string } | undefined;
  if (status === 'spam') return stored(await insert(null));
  return inFreeSeat(tx, date, async (seatNo) => stored(await insert(seatNo)));
}

/**
 * Writes a row into the lowest seat number of `date` that looks free (`write`, in a savepoint).
 * Numbers another instance took since they were read are refused by the unique constraint
 * (class_seats_one_per_seat) and the next is tried, at most one try per seat of the class; a
 * number past the capacity is refused by its CHECK. 'already' when the person holds a live place
 * in the class (class_seats_one_per_person), 'full' when no number is left.
 */
async function inFreeSeat<T>(
  tx: Queryable,
  date: Pick<ClassDate, 'id' | 'capacity'>,
  write: (seatNo: number) => Promise<T>,
): Promise<T | NoSeat> {
  for (let tries = 0; tries <= date.capacity; tries++) {
    const { rows } = await tx.query(
      `SELECT n FROM generate_series(1, $2::int) AS n
        WHERE NOT EXISTS (SELECT 1 FROM class_seats WHERE class_date_id = $1 AND seat_no = n)
        ORDER BY n LIMIT 1`,
      [date.id, date.capacity],
    );
    const free = (rows[0] as { n: number } | undefined)?.n;
    if (free === undefined) return 'full';
    await tx.query('SAVEPOINT take_seat');
    try {
      const result = await write(Number(free));
      await tx.query('RELEASE SAVEPOINT take_seat');
      return result;
    } catch (error) {
      const constraint = constraintOf(error);
      if (constraint === undefined) throw error;
      await tx.query('ROLLBACK TO SAVEPOINT take_seat');
      if (constraint === 'class_seats_one_per_person') return 'already';
      if (constraint !== 'class_seats_one_per_seat') throw error;
    }
  }
  return 'full';
}

// ---------------------------------------------------------------------------------------------
// Places paid online (payments/webhook.ts): held while the checkout is open, then paid or lapsed

/** A held place's payment succeeded while it still holds its seat: paid. False when it does not. */
export async function markSeatPaid(tx: Queryable, id: string): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE class_seats
        SET payment = 'paid', held_until = NULL, paid_at = ${sqlNow()}, paid_by = 'checkout',
            updated_at = ${sqlNow()}
      WHERE id = $1 AND payment = 'held' AND status = 'booked'
  RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

/**
 * A place whose hold lapsed before its payment came takes a seat again, paid, when one is free
 * (the constraints decide, as for any booking): 'full' or 'already' when not.
 */
export async function retakeSeatPaid(
  tx: Queryable,
  id: string,
  date: Pick<ClassDate, 'id' | 'capacity'>,
): Promise<true | NoSeat> {
  return inFreeSeat(tx, date, async (seatNo) => {
    const { rows } = await tx.query(
      `UPDATE class_seats
          SET status = 'booked', seat_no = $2, payment = 'paid', held_until = NULL,
              paid_at = ${sqlNow()}, paid_by = 'checkout', updated_at = ${sqlNow()}
        WHERE id = $1 AND payment = 'held' AND status = 'lapsed'
    RETURNING id`,
      [id, seatNo],
    );
    if (rows.length === 0) throw new Error(`place ${id} is not a lapsed hold`);
    return true as const;
  });
}

/**
 * Gives back the seat of a place held for a payment that will not come (its checkout lapsed,
 * or could not open): its class date's id, or `undefined` when it held none.
 */
export async function releaseSeatHold(tx: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await tx.query(
    `UPDATE class_seats SET status = 'lapsed', seat_no = NULL, updated_at = ${sqlNow()}
      WHERE id = $1 AND payment = 'held' AND seat_no IS NOT NULL
  RETURNING class_date_id`,
    [id],
  );
  return (rows[0] as { class_date_id: string } | undefined)?.class_date_id;
}

/**
 * Gives up a live place in the caller's transaction (its seat number freed), raising its
 * sequence: the new sequence, or `undefined` when it was not live (a repeated cancel).
 */
export async function cancelSeat(
  tx: Queryable,
  id: string,
  by: string,
  note: string | null = null,
): Promise<number | undefined> {
  const { rows } = await tx.query(
    `UPDATE class_seats
        SET status = 'cancelled', seat_no = NULL, cancelled_at = ${sqlNow()}, cancelled_by = $2,
            cancel_note = $3, sequence = sequence + 1, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'booked'
  RETURNING sequence`,
    [id, by, note],
  );
  const row = rows[0] as { sequence: number } | undefined;
  return row && Number(row.sequence);
}

// ---------------------------------------------------------------------------------------------
// The waitlist

export type WaitStatus = 'waiting' | 'offered' | 'claimed' | 'lapsed' | 'closed' | 'spam';

export interface WaitEntry {
  id: string;
  classDateId: string;
  name: string;
  email: string;
  origin: string;
  status: WaitStatus;
  seatId: string | null;
  offerExpiresAt: Date | null;
  claim: { sealed: string; sha256: string } | null;
}

interface WaitRow {
  id: string;
  class_date_id: string;
  name: string;
  email: string;
  origin: string;
  status: WaitStatus;
  seat_id: string | null;
  offer_expires_at: Date | null;
  claim_token_sealed: string | null;
  claim_token_sha256: string | null;
}

const WAIT_COLUMNS = `id, class_date_id, name, email, origin, status, seat_id, offer_expires_at,
  claim_token_sealed, claim_token_sha256`;

function waitEntry(row: WaitRow): WaitEntry {
  return {
    id: row.id,
    classDateId: row.class_date_id,
    name: row.name,
    email: row.email,
    origin: row.origin,
    status: row.status,
    seatId: row.seat_id,
    offerExpiresAt: maybeDate(row.offer_expires_at),
    claim:
      row.claim_token_sealed && row.claim_token_sha256
        ? { sealed: row.claim_token_sealed, sha256: row.claim_token_sha256 }
        : null,
  };
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
  try {
    await tx.query('SAVEPOINT join_waitlist');
    const { rows } = await tx.query(
      `INSERT INTO class_waitlist
         (id, class_date_id, name, email, mailbox, origin, submission_id, request_sha256,
          client_network, timed, spam_reason, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, ${sqlNow()}, ${sqlNow()})
       ON CONFLICT (submission_id) DO NOTHING
       RETURNING id`,
      [
        randomUUID(),
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
        ORDER BY place LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [dateId],
    )
  ).rows as WaitRow[];
  return row && waitEntry(row);
}

/** Marks an entry offered the place `seatId` until `expiresAt`, with a new claim token. */
export async function markOffered(
  tx: Queryable,
  entryId: string,
  seatId: string,
  expiresAt: Date,
): Promise<void> {
  const claim = newStoredToken(CLAIM_TOKEN_FIELD, entryId);
  await tx.query(
    `UPDATE class_waitlist
        SET status = 'offered', seat_id = $2, claim_token_sha256 = $3, claim_token_sealed = $4,
            offered_at = ${sqlNow()}, offer_expires_at = $5, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'waiting'`,
    [entryId, seatId, claim.sha256, claim.sealed, expiresAt.toISOString()],
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

/** Gives back the seat of a place offered and not claimed. */
export async function lapseSeat(tx: Queryable, seatId: string): Promise<void> {
  await tx.query(
    `UPDATE class_seats SET status = 'lapsed', seat_no = NULL, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'offered'`,
    [seatId],
  );
}

/**
 * Turns a place offered into a place booked (the claim); paid online, held until `heldUntil`
 * while its checkout is open.
 */
export async function bookOfferedSeat(
  tx: Queryable,
  seatId: string,
  heldUntil?: Date,
): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE class_seats
        SET status = 'booked', payment = CASE WHEN $2::timestamptz IS NULL THEN payment ELSE 'held' END,
            held_until = $2, updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'offered' RETURNING id`,
    [seatId, heldUntil?.toISOString() ?? null],
  );
  return rows.length > 0;
}

/**
 * A claim whose checkout could not open (Stripe down): the place goes back to being offered, as
 * it was, so the person can claim it again while the offer holds.
 */
export async function unclaimSeat(tx: Queryable, seatId: string): Promise<void> {
  await tx.query(
    `UPDATE class_seats SET status = 'offered', payment = 'due', held_until = NULL,
            updated_at = ${sqlNow()}
      WHERE id = $1 AND status = 'booked' AND payment = 'held'`,
    [seatId],
  );
  await tx.query(
    `UPDATE class_waitlist SET status = 'offered', updated_at = ${sqlNow()}
      WHERE seat_id = $1 AND status = 'claimed'`,
    [seatId],
  );
}
