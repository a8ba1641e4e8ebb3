/**
 * The bookings table (consultation_bookings): store a booking, move it, cancel it, read it back.
 *
 * What a booking holds of the instructor's time is its `held` range, [start, end + buffer), and
 * Postgres refuses two live bookings whose held ranges overlap (an exclusion constraint), on any
 * instance, at any moment: a slot booked twice at once fails on insert for the second request, a
 * move onto a taken slot fails on update. This module lets that error through; the function that
 * called it turns it into "that time has just been taken" (`isSlotTaken`).
 *
 * Every change the visitor's calendar must hear of (a move, a cancellation) raises `sequence`,
 * and every mail about the booking is queued with the ref `<id>:<sequence>` (`mailRef`), so each
 * change has mails of its own and an older mail can tell it was overtaken.
 *
 * The manage link's token is 32 random bytes made at booking. The row keeps its SHA-256, to find
 * the booking by it, and the token sealed with the site's key (bound to the row), so a mail
 * composed later carries the same link; `npm run rotate-key` re-seals it with a new key.
 */
import { randomUUID } from 'node:crypto';
import type { BookingRequest } from '../../shared/booking/form';
import { mailboxOf } from '../../shared/email';
import type { Interval } from '../../shared/booking/intervals';
import { newStoredToken, tokenHash } from '../platform/tokens';
import { sqlNow } from '../platform/clock';
import { clientFingerprint, decryptField, keyedTokens } from '../platform/crypto';
import { wideNetwork } from '../request/rate-limit';
import { query, type Queryable } from '../platform/db';
import type { Received } from '../request/steps';
import { managePath } from '../../shared/site-paths';
import { appointmentTable, heldRange, type Appointment, type AppointmentRow } from './appointments';

/** A consultation: an appointment and the topic the visitor gave. */
export interface Booking extends Appointment {
  topic: string;
}

export type { StoredLink } from './appointments';

interface Row extends AppointmentRow {
  topic: string;
}

const consultations = appointmentTable<Row, Booking>('consultation_bookings', 'topic', (row) => ({
  topic: row.topic,
}));
const COLUMNS = consultations.columns;
const booking = consultations.read;

export { mailRef, readMailRef } from '../bookings/mail-ref';

/** The field the sealed token is bound to (with the booking's id): `manage_token_sealed`. */
export const MANAGE_TOKEN_FIELD = 'manageToken';

/**
 * The token of a booking's manage link, opened from its row with whichever given key sealed it.
 * A booking made before tokens were sealed (null) had one derived from its id under the key of
 * the time: the one of the given keys whose hash the row holds. Throws when no given key opens
 * or rebuilds it (an old key removed before `npm run rotate-key` moved it): a mail is then not
 * sent with a link that opens nothing.
 */
export function manageToken(booking: Pick<Booking, 'id' | 'link'>): string {
  const { sealed, sha256 } = booking.link;
  const token = sealed
    ? decryptField(sealed, MANAGE_TOKEN_FIELD, booking.id)
    : derivedManageToken(booking)?.token;
  if (token === undefined || tokenHash(token) !== sha256) {
    throw new Error(`Booking ${booking.id}: its manage link cannot be rebuilt with the keys given`);
  }
  return token;
}

/** The token of a booking made before tokens were sealed, and the given key it was made under. */
export function derivedManageToken(booking: Pick<Booking, 'id' | 'link'>) {
  return keyedTokens('booking-manage', booking.id).find(
    ({ token }) => tokenHash(token) === booking.link.sha256,
  );
}

/** The page that shows one booking and offers to move or cancel it. */
export function manageUrl(booking: Pick<Booking, 'id' | 'link' | 'origin'>): string {
  return `${booking.origin}${managePath(manageToken(booking))}`;
}

/** Postgres refused the held range: it overlaps a live booking of any kind (SQLSTATE 23P01). */
export function isSlotTaken(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return (
    code === '23P01' &&
    (constraint === undefined ||
      constraint === 'consultation_bookings_no_overlap' ||
      constraint === 'held_time_no_overlap')
  );
}

/** What the function has made of a posted slot: the consultation and what it holds. */
export interface BookedSlot {
  start: Date;
  end: Date;
  /** The end of the held range: the consultation's end plus the buffer. */
  heldEnd: Date;
}

// The SQL twin of `mailboxOf` (shared/email.ts).
const MAILBOX_SQL = `regexp_replace(lower(email), '\\+[^@]*@', '@')`;

/** The keyed hash of the network (IPv4 /24, IPv6 /56) a booking is made from, as stored. */
export const networkOf = (ip: string) => clientFingerprint(wideNetwork(ip));

/**
 * The live consultations to come that a mailbox and a network hold (spam holds nothing), apart
 * from the one booked under `exceptSubmission` (a repeat of it is not one more).
 */
export async function upcomingHeld(
  email: string,
  ip: string,
  tx?: Queryable,
  exceptSubmission?: string,
): Promise<{ mailbox: number; network: number }> {
  const sql = `SELECT count(*) FILTER (WHERE ${MAILBOX_SQL} = $1)::int AS mailbox,
                      count(*) FILTER (WHERE client_network = $2)::int AS network
                 FROM consultation_bookings
                WHERE cancelled_at IS NULL AND spam_reason IS NULL AND starts_at > ${sqlNow()}
                  AND (${MAILBOX_SQL} = $1 OR client_network = $2)
                  AND ($3::uuid IS NULL OR submission_id IS DISTINCT FROM $3::uuid)`;
  const params = [mailboxOf(email), networkOf(ip), exceptSubmission ?? null];
  const [row] = tx
    ? ((await tx.query(sql, params)).rows as { mailbox: number; network: number }[])
    : await query<{ mailbox: number; network: number }>(sql, params);
  return { mailbox: Number(row?.mailbox ?? 0), network: Number(row?.network ?? 0) };
}

/** The caps on consultations to come (settings), for `upcomingHeld`'s counts. */
export interface UpcomingCaps {
  mailbox: number;
  network: number;
}

/** Which cap a new booking would pass, if any. */
export function capPassed(
  held: { mailbox: number; network: number },
  caps: UpcomingCaps,
): 'mailbox' | 'network' | undefined {
  if (held.mailbox >= caps.mailbox) return 'mailbox';
  if (held.network >= caps.network) return 'network';
  return undefined;
}

/**
 * Thrown inside the booking's transaction when, counted again under its locks, the mailbox or
 * the network already holds its cap (a race of two bookings both counted before either stored).
 * It carries a SQLSTATE (P0001, raise_exception) so the database layer lets it through as a
 * refusal rather than an outage.
 */
export class UpcomingCapReached extends Error {
  readonly code = 'P0001';
  readonly cap: 'mailbox' | 'network';
  constructor(cap: 'mailbox' | 'network') {
    super(`the ${cap} already holds its consultations to come`);
    this.name = 'UpcomingCapReached';
    this.cap = cap;
  }
}

/**
 * Stores a booking in the caller's transaction: the row as stored and its manage token, or
 * `undefined` when its submission id is already stored (a retry, a double click). A slot that
 * another booking holds throws (23P01).
 * A mailbox or network at its cap of consultations to come throws `UpcomingCapReached` (unless
 * the booking is spam, which holds nothing). A booking taken for spam is kept for the desk but
 * holds nothing.
 */
export async function insertBooking(
  tx: Queryable,
  request: BookingRequest,
  { submissionId, fingerprint, spam, timed, origin, client }: Received,
  slot: BookedSlot,
  caps?: UpcomingCaps,
): Promise<{ booking: Booking; token: string } | undefined> {
  const id = randomUUID();
  const stored = newStoredToken(MANAGE_TOKEN_FIELD, id);
  // Two sends of one submission at once take turns here, so the second finds the first's row
  // (ON CONFLICT below) instead of running into its slot.
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [submissionId]);
  if (caps && !spam) {
    // Two bookings from one mailbox or network take turns, so both are counted.
    const network = networkOf(client.ip);
    for (const key of [
      `booking-mailbox:${mailboxOf(request.email)}`,
      `booking-network:${network}`,
    ]) {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    }
    const held = await upcomingHeld(request.email, client.ip, tx, submissionId);
    const passed = capPassed(held, caps);
    if (passed) throw new UpcomingCapReached(passed);
  }
  const { rows } = await tx.query(
    `INSERT INTO consultation_bookings
       (id, starts_at, ends_at, held, name, email, phone, topic, manage_token_sha256,
        manage_token_sealed, origin, submission_id, spam_reason, timed, request_sha256,
        client_network, created_at, updated_at)
     VALUES ($1, $2, $3, $4::tstzrange, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
             ${sqlNow()}, ${sqlNow()})
     ON CONFLICT (submission_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      id,
      slot.start.toISOString(),
      slot.end.toISOString(),
      heldRange(slot.start, slot.heldEnd),
      request.name,
      request.email,
      request.phone,
      request.topic,
      stored.sha256,
      stored.sealed,
      origin,
      submissionId,
      spam,
      timed,
      fingerprint,
      networkOf(client.ip),
    ],
  );
  const row = rows[0] as Row | undefined;
  return row && { booking: booking(row), token: stored.token };
}

export const loadBooking = consultations.byId;
/** The booking a manage link's token opens, if any. */
export const bookingByToken = consultations.byToken;
/** The booking stored under a submission id, if any (in the caller's transaction, `tx`). */
export const bookingBySubmission = consultations.bySubmission;

/**
 * Moves a live, upcoming booking to `slot` in the caller's transaction and raises its sequence:
 * the new sequence, or `undefined` when it cannot be moved (cancelled, begun, or already there).
 * A slot another booking holds throws (23P01); the booking's own old time never stands in the way.
 */
export const moveBooking = (tx: Queryable, id: string, slot: BookedSlot) =>
  consultations.move(tx, id, { ...slot, heldStart: slot.start });

/**
 * Cancels a live booking in the caller's transaction, raising its sequence: the new sequence, or
 * `undefined` when it was cancelled already (so a repeated cancel changes nothing more). A past
 * booking can be cancelled only on the desk (`past: true`), to record that it did not happen.
 */
export const cancelBooking = consultations.cancel;

/**
 * A row of held_time kept for a visitor who was paying, whose hold has lapsed: free again for
 * everyone else, whether or not the row was released yet (session-store.ts).
 */
export const lapsedHold = () => `EXISTS (SELECT 1 FROM session_bookings s
  WHERE s.id = held_time.session_id AND s.payment = 'held' AND s.hold_expires_at <= ${sqlNow()})`;

/**
 * What is not free within `span`: what live bookings of every kind hold of it (held_time,
 * migration 0080: a consultation's [start, end + buffer) as it was booked, a session's with its
 * travel; spam and cancelled bookings hold nothing), except the consultation `except`, the one
 * being moved, and the spans
 * blocked on the desk (as they are, no buffer). One statement, so the booking page's read takes
 * one connection and one round trip: the pool closes connections idle for ten seconds, so most
 * of the page's requests (a shared cache keeps it 45 seconds) open a fresh one.
 */
export async function takenSpans(span: Interval, except?: string): Promise<Interval[]> {
  const rows = await query<{ span_from: Date; span_to: Date }>(
    `SELECT lower(span) AS span_from, upper(span) AS span_to FROM held_time
      WHERE span && tstzrange($1::timestamptz, $2::timestamptz)
        AND ($3::uuid IS NULL OR consultation_id IS DISTINCT FROM $3::uuid)
        AND NOT ${lapsedHold()}
     UNION ALL
     SELECT lower(span), upper(span) FROM consultation_blocks
      WHERE span && tstzrange($1::timestamptz, $2::timestamptz)`,
    [span.start.toISOString(), span.end.toISOString(), except ?? null],
  );
  return rows.map((row) => ({ start: new Date(row.span_from), end: new Date(row.span_to) }));
}

/** A consultation as the desk lists it. */
export type DeskConsultationRow = Pick<
  Row,
  'id' | 'starts_at' | 'ends_at' | 'name' | 'email' | 'phone' | 'cancelled_at' | 'cancelled_by'
>;

/** The consultations (not spam) that end after `from`, by time, at most `limit`. */
export function consultationsFrom(from: Date, limit: number): Promise<DeskConsultationRow[]> {
  return query<DeskConsultationRow>(
    `SELECT id, starts_at, ends_at, name, email, phone, cancelled_at, cancelled_by
       FROM consultation_bookings
      WHERE ends_at > $1 AND spam_reason IS NULL
      ORDER BY starts_at, id LIMIT $2`,
    [from.toISOString(), limit],
  );
}

/** Where a consultation stands: none (or spam), cancelled, or still live (it may have ended). */
export async function consultationState(id: string): Promise<'missing' | 'cancelled' | 'live'> {
  const [row] = await query<{ cancelled: boolean }>(
    `SELECT cancelled_at IS NOT NULL AS cancelled FROM consultation_bookings
      WHERE id = $1 AND spam_reason IS NULL`,
    [id],
  );
  return !row ? 'missing' : row.cancelled ? 'cancelled' : 'live';
}

/** Live bookings starting in [from, to), or everything live from `from` on. */
export async function bookingsBetween(from: Date, to?: Date): Promise<Booking[]> {
  const rows = await query<Row>(
    `SELECT ${COLUMNS} FROM consultation_bookings
      WHERE cancelled_at IS NULL AND spam_reason IS NULL
        AND starts_at >= $1 AND ($2::timestamptz IS NULL OR starts_at < $2)
      ORDER BY starts_at`,
    [from.toISOString(), to?.toISOString() ?? null],
  );
  return rows.map(booking);
}

/** A person's consultations, for an erasure (bookings/kinds.ts). */
export const consultationsOfPerson = consultations.ofPerson;
export const consultationsCancelled = consultations.cancellations;

/** A consultation as the desk's Consultations screen lists it. */
export type ListedConsultation = Pick<
  Row,
  | 'id'
  | 'starts_at'
  | 'ends_at'
  | 'name'
  | 'email'
  | 'phone'
  | 'topic'
  | 'created_at'
  | 'cancelled_at'
  | 'cancelled_by'
  | 'cancel_note'
  | 'spam_reason'
> & { at_text: string };

/**
 * Consultations ending after now (`upcoming`, soonest first) or by now (latest first), at most
 * `limit`, after the keyset `after` (its end and id).
 */
export function consultationPage(
  upcoming: boolean,
  limit: number,
  after?: { at: string; id: string },
): Promise<ListedConsultation[]> {
  const params: unknown[] = [limit];
  let keyset = '';
  if (after) {
    params.push(after.at, after.id);
    keyset = `AND (b.ends_at, b.id) ${upcoming ? '>' : '<'} ($2::timestamptz, $3::uuid)`;
  }
  const order = upcoming ? 'b.ends_at, b.id' : 'b.ends_at DESC, b.id DESC';
  return query<ListedConsultation>(
    `SELECT b.id, b.starts_at, b.ends_at, b.name, b.email, b.phone, b.topic, b.created_at,
            b.cancelled_at, b.cancelled_by, b.cancel_note, b.spam_reason, b.ends_at::text AS at_text
       FROM consultation_bookings b
      WHERE b.ends_at ${upcoming ? '>' : '<='} ${sqlNow()} ${keyset}
      ORDER BY ${order}
      LIMIT $1`,
    params,
  );
}

/** The live consultations to come, grouped by the network they came from, where one holds `at` or more. */
export function crowdedConsultations(
  at: number,
): Promise<{ ids: string[]; names: string[]; starts: Date[] }[]> {
  return query(
    `SELECT array_agg(id::text ORDER BY starts_at) AS ids, array_agg(name ORDER BY starts_at) AS names,
            array_agg(starts_at ORDER BY starts_at) AS starts
       FROM consultation_bookings
      WHERE cancelled_at IS NULL AND spam_reason IS NULL AND ends_at > ${sqlNow()}
        AND client_network IS NOT NULL
      GROUP BY client_network
     HAVING count(*) >= $1
      ORDER BY count(*) DESC, min(starts_at)`,
    [at],
  );
}

/** The spans of the live consultations still to come. */
export function liveConsultationSpans(): Promise<{ starts_at: Date; ends_at: Date }[]> {
  return query(
    `SELECT starts_at, ends_at FROM consultation_bookings
      WHERE ends_at > ${sqlNow()} AND cancelled_at IS NULL AND spam_reason IS NULL`,
  );
}

/** The names of the consultations among `ids`, by id (the desk's list of undelivered mail). */
export async function consultationNames(ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await query<{ id: string; name: string }>(
    `SELECT id::text, name FROM consultation_bookings WHERE id::text = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}
