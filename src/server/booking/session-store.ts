/**
 * The sessions table (session_bookings, migration 0080): store a private or in-home session,
 * move it, cancel it, read it back; and what every kind of booking holds of the instructor's
 * time (held_time), which the free times of both the sessions and the consultation leave out.
 *
 * A session holds its `held` range: [start, end + buffer) at the studio, and the travel time
 * before and after too at the visitor's address. A trigger writes that range into held_time,
 * whose exclusion constraint refuses it when any other live booking of any kind holds a moment of
 * it, on any instance, at any moment: this module lets that error (23P01) through, and the
 * function turns it into "that time has just been taken" (`isSlotTaken`, store.ts).
 *
 * The amount due is the price in content when it was booked, stored on the row in cents; the
 * browser never says it. Every change the visitor's calendar must hear of raises `sequence` (the
 * invite's SEQUENCE, and the mails' ref `<id>:<sequence>`, as for the consultation). The manage
 * link's token is 32 random bytes: the row keeps its SHA-256 and the token sealed (bound to the
 * row), so a mail composed later carries the same link.
 */
import { randomUUID } from 'node:crypto';
import type { Interval } from '../../shared/booking/intervals';
import type { SessionBookingRequest } from '../../shared/booking/session-form';
import { newToken, tokenHash } from '../platform/tokens';
import { sqlNow } from '../platform/clock';
import { decryptField, encryptField } from '../platform/crypto';
import { PAGES } from '../../shared/site-paths';
import { query, type Queryable } from '../platform/db';
import type { DeskLock } from '../bookings/lock';
import { dayParams, withinDays, type DayRange } from '../bookings/range';
import { paidAtStudioSet } from '../bookings/sql';
import type { DeskConsultationRow } from './store';
import type { Received } from '../request/steps';
import type { SessionType } from './policy';
import { lapsedHold, networkOf } from './store';
import { appointmentTable, heldRange, type Appointment, type AppointmentRow } from './appointments';

/** A session's time as booked: the session itself and what it holds of her time. */
export interface SessionSlot {
  start: Date;
  end: Date;
  /** The held range: the travel before (in-home), the session, the buffer and travel after. */
  heldStart: Date;
  heldEnd: Date;
}

export type Payment = 'due' | 'held' | 'paid';

/** A private or in-home session: an appointment of a type, at a place, with its payment. */
export interface SessionBooking extends Appointment {
  type: string;
  title: string;
  place: 'studio' | 'home';
  street: string | null;
  postalCode: string | null;
  amountCents: number;
  payment: Payment;
  /** While `payment` is held: when the hold lapses unless Stripe says it is paid. */
  holdExpiresAt: Date | null;
  noShow: boolean;
}

interface Row extends AppointmentRow {
  session_type: string;
  session_title: string;
  place: 'studio' | 'home';
  street: string | null;
  postal_code: string | null;
  amount_cents: number;
  payment: Payment;
  hold_expires_at: Date | null;
  no_show_at: Date | null;
}

const date = (value: Date | string) => new Date(value);

const sessions = appointmentTable<Row, SessionBooking>(
  'session_bookings',
  `session_type, session_title, place, street, postal_code, amount_cents, payment,
   hold_expires_at, no_show_at`,
  (row) => ({
    type: row.session_type,
    title: row.session_title,
    place: row.place,
    street: row.street,
    postalCode: row.postal_code,
    amountCents: Number(row.amount_cents),
    payment: row.payment,
    holdExpiresAt: row.hold_expires_at && date(row.hold_expires_at),
    noShow: row.no_show_at !== null,
  }),
);
const COLUMNS = sessions.columns;
const sessionOf = sessions.read;

/** The field the sealed token is bound to (with the session's id). */
const MANAGE_TOKEN_FIELD = 'manageToken';

/** The token of a session's manage link, opened from its row. */
export function sessionToken(booking: Pick<SessionBooking, 'id' | 'link'>): string {
  const token = booking.link.sealed
    ? decryptField(booking.link.sealed, MANAGE_TOKEN_FIELD, booking.id)
    : undefined;
  if (token === undefined || tokenHash(token) !== booking.link.sha256) {
    throw new Error(`Session ${booking.id}: its manage link cannot be rebuilt with the keys given`);
  }
  return token;
}

/** The page of one session, relative to the site (the answer's link, and the 303's target). */
export const sessionManagePath = (token: string) => `${PAGES.sessionManage}?token=${token}`;

export const sessionManageUrl = (booking: Pick<SessionBooking, 'id' | 'link' | 'origin'>) =>
  `${booking.origin}${sessionManagePath(sessionToken(booking))}`;

/**
 * Stores a session in the caller's transaction: the row as stored and its manage token, or
 * `undefined` when its submission id is already stored (a retry, a double click: the caller
 * reads that row). The time another live booking holds throws (23P01, held_time_no_overlap).
 * The amount due is `type`'s price from content.
 */
export async function insertSession(
  tx: Queryable,
  request: SessionBookingRequest,
  { submissionId, fingerprint, spam, timed, origin, client }: Received,
  type: SessionType,
  slot: SessionSlot,
  /** Paying online: the time is held for the visitor until then, and not yet booked. */
  holdUntil?: Date,
): Promise<{ booking: SessionBooking; token: string } | undefined> {
  const id = randomUUID();
  const token = newToken();
  // Two sends of one submission at once take turns here, so the second finds the first's row.
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [submissionId]);
  const known = await tx.query('SELECT 1 FROM session_bookings WHERE submission_id = $1', [
    submissionId,
  ]);
  if (known.rows.length > 0) return undefined;
  const home = type.where === 'home';
  const { rows } = await tx.query(
    `INSERT INTO session_bookings
       (id, session_type, session_title, place, starts_at, ends_at, held, name, email, phone,
        street, postal_code, amount_cents, manage_token_sha256, manage_token_sealed, origin,
        submission_id, request_sha256, spam_reason, timed, client_network, payment,
        hold_expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::tstzrange, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
             $18, $19, $20, $21, $22, $23, ${sqlNow()}, ${sqlNow()})
     RETURNING ${COLUMNS}`,
    [
      id,
      type.id,
      type.title,
      type.where,
      slot.start.toISOString(),
      slot.end.toISOString(),
      heldRange(slot.heldStart, slot.heldEnd),
      request.name,
      request.email,
      request.phone,
      home ? request.street : null,
      home ? request.postalCode : null,
      Math.round(type.price * 100),
      tokenHash(token),
      encryptField(token, MANAGE_TOKEN_FIELD, id),
      origin,
      submissionId,
      fingerprint,
      spam,
      timed,
      networkOf(client.ip),
      holdUntil ? 'held' : 'due',
      holdUntil?.toISOString() ?? null,
    ],
  );
  const row = rows[0] as Row | undefined;
  return row && { booking: sessionOf(row), token };
}

export const loadSession = sessions.byId;
/** The session a manage link's token opens, if any. */
export const sessionByToken = sessions.byToken;
/** The session stored under a submission id, if any (in the caller's transaction, `tx`). */
export const sessionBySubmission = sessions.bySubmission;
/** Moves a live session still to come to `slot` (appointments.ts): its new sequence. */
export const moveSession = (tx: Queryable, id: string, slot: SessionSlot) =>
  sessions.move(tx, id, slot);

/**
 * Cancels a live session in the caller's transaction, raising its sequence: the new sequence, or
 * `undefined` when it was cancelled already or has ended (a repeated cancel changes nothing).
 */
export const cancelSession = (tx: Queryable, id: string, by: string, note: string | null = null) =>
  sessions.cancel(tx, id, by, { note });

/**
 * What is not free within `span`: what every live booking of every kind holds (held_time), but
 * the one being moved (`except`), and the spans blocked on the desk. One statement.
 */
export async function heldSpans(
  span: Interval,
  except: { session?: string; consultation?: string } = {},
): Promise<Interval[]> {
  const rows = await query<{ span_from: Date; span_to: Date }>(
    `SELECT lower(span) AS span_from, upper(span) AS span_to FROM held_time
      WHERE span && tstzrange($1::timestamptz, $2::timestamptz)
        AND ($3::uuid IS NULL OR session_id IS DISTINCT FROM $3::uuid)
        AND ($4::uuid IS NULL OR consultation_id IS DISTINCT FROM $4::uuid)
        AND NOT ${lapsedHold()}
     UNION ALL
     SELECT lower(span), upper(span) FROM consultation_blocks
      WHERE span && tstzrange($1::timestamptz, $2::timestamptz)`,
    [
      span.start.toISOString(),
      span.end.toISOString(),
      except.session ?? null,
      except.consultation ?? null,
    ],
  );
  return rows.map((row) => ({ start: date(row.span_from), end: date(row.span_to) }));
}

/** Who released a hold whose checkout lapsed, in `cancelled_by`. */
export const LAPSED_CHECKOUT = 'checkout';

/** Gives back the time of one session held for a payment that will not come (nothing if not held). */
export async function releaseSessionHold(tx: Queryable, id: string): Promise<void> {
  await tx.query(
    `UPDATE session_bookings
        SET cancelled_at = ${sqlNow()}, cancelled_by = $2, updated_at = ${sqlNow()}
      WHERE id = $1 AND payment = 'held' AND cancelled_at IS NULL`,
    [id, LAPSED_CHECKOUT],
  );
}

/**
 * Releases every session whose hold lapsed by now (its checkout's `expires_at` passed, and no
 * payment event came): run before a booking is stored, so an abandoned checkout never keeps a
 * time from the next visitor, and on the studio's clock by the scheduled sweep.
 */
export async function releaseLapsedSessionHolds(tx: Queryable): Promise<number> {
  const { rows } = await tx.query(
    `UPDATE session_bookings
        SET cancelled_at = ${sqlNow()}, cancelled_by = $1, updated_at = ${sqlNow()}
      WHERE payment = 'held' AND cancelled_at IS NULL AND hold_expires_at <= ${sqlNow()}
  RETURNING id`,
    [LAPSED_CHECKOUT],
  );
  return rows.length;
}

// ---------------------------------------------------------------------------------------------
// What the desk does to a session (bookings/kinds.ts)

/** A session locked for the desk; none for spam or a hold that lapsed unpaid (never a booking). */
export async function lockSessionForDesk(tx: Queryable, id: string): Promise<DeskLock | undefined> {
  const { rows } = await tx.query(
    `SELECT payment, paid_by, cancelled_at IS NOT NULL AS gone, starts_at > ${sqlNow()} AS to_come
       FROM session_bookings
      WHERE id = $1 AND spam_reason IS NULL AND cancelled_by IS DISTINCT FROM $2
        FOR UPDATE`,
    [id, LAPSED_CHECKOUT],
  );
  const row = rows[0] as
    { payment: Payment; paid_by: string | null; gone: boolean; to_come: boolean } | undefined;
  return row && { payment: row.payment, paidBy: row.paid_by, gone: row.gone, toCome: row.to_come };
}

/** Records a session paid at the studio by `by`, or (`null`) due again. */
export async function setSessionPaidAtStudio(
  tx: Queryable,
  id: string,
  by: string | null,
): Promise<void> {
  await tx.query(`UPDATE session_bookings SET ${paidAtStudioSet()} WHERE id = $1`, [id, by]);
}

/** Marks a session a no-show by `by`, or (`null`) takes the mark back. */
export async function setSessionNoShow(
  tx: Queryable,
  id: string,
  by: string | null,
): Promise<void> {
  await tx.query(
    `UPDATE session_bookings
        SET no_show_at = CASE WHEN $2::text IS NULL THEN NULL ELSE ${sqlNow()} END,
            no_show_by = $2, updated_at = ${sqlNow()}
      WHERE id = $1`,
    [id, by],
  );
}

/** A session as the desk lists it. */
export interface DeskSessionRow extends DeskConsultationRow {
  session_type: string;
  session_title: string;
  place: 'studio' | 'home';
  street: string | null;
  postal_code: string | null;
  amount_cents: number;
  payment: Payment;
  no_show_at: Date | null;
}

/**
 * The sessions (not spam) that end after `from`, by time, at most `limit`. A time held for a
 * checkout that lapsed unpaid was never a booking: not listed.
 */
export async function sessionsFrom(from: Date, limit: number): Promise<DeskSessionRow[]> {
  return query<DeskSessionRow>(
    `SELECT id, session_type, session_title, place, street, postal_code, starts_at, ends_at,
            name, email, phone, amount_cents, payment, no_show_at, cancelled_at, cancelled_by
       FROM session_bookings
      WHERE ends_at > $1 AND spam_reason IS NULL AND cancelled_by IS DISTINCT FROM $3
      ORDER BY starts_at, id LIMIT $2`,
    [from.toISOString(), limit, LAPSED_CHECKOUT],
  );
}

/** A session's line of the desk's CSV, before its payment and the waiver's phone are added. */
export interface CsvSessionRow {
  kind: 'session';
  id: string;
  what: string;
  place: 'studio' | 'home';
  starts_at: Date;
  name: string;
  email: string;
  phone: string;
  price_cents: number;
  payment: Payment;
  paid_at: Date | null;
  paid_by: string | null;
  cancelled_at: Date | null;
  no_show: boolean;
}

/** The sessions (not spam, not a lapsed hold) that start in the range. */
export function sessionsForCsv(range: DayRange): Promise<CsvSessionRow[]> {
  return query<CsvSessionRow>(
    `SELECT 'session' AS kind, id, session_title AS what, place, starts_at, name, email, phone,
            amount_cents AS price_cents, payment, paid_at, paid_by, cancelled_at,
            no_show_at IS NOT NULL AS no_show
       FROM session_bookings
      WHERE spam_reason IS NULL AND cancelled_by IS DISTINCT FROM $4 AND ${withinDays('starts_at')}`,
    [...dayParams(range), LAPSED_CHECKOUT],
  );
}

/** A person's private and in-home sessions, for an erasure (bookings/kinds.ts). */
export const sessionsOfPerson = sessions.ofPerson;
export const sessionsCancelled = sessions.cancellations;
