/**
 * The desk's Bookings screen: the consultations, private and in-home sessions and class dates of
 * today and to come, each person with whether a waiver covers them and where their payment
 * stands; and what she does there: mark a payment made at the studio, mark a no-show, cancel one
 * booking (through each kind's own cancellation, so the person and her calendar are told as for
 * a visitor's), cancel a whole class date (everyone told, those who paid online refunded), and
 * refund a payment made online, in full or in part, never twice.
 *
 * Every change runs in one transaction with its access-log line; mails are queued in it and sent
 * after the answer, refunds sent to Stripe first (so a mail saying "refunded" follows Stripe's
 * answer; one Stripe did not answer stays pending and is asked again by `send-refunds`).
 */
import type {
  BookedPerson,
  BookingsOverview,
  DeskBooking,
  DeskClass,
  DeskPlace,
  PaymentView,
} from '../../shared/desk-api';
import { withinHours } from '../../shared/booking/window-starts';
import * as zoned from '../../shared/booking/zoned';
import type { Staff } from '../auth/sessions';
import { consultationSettings } from '../booking/consultation';
import { sessionPolicy, sessionType } from '../booking/policy';
import { cancelSession } from '../booking/session-store';
import { mailRef } from '../booking/store';
import { cancelClassDate, markNoShow as markPlaceNoShow } from '../classes/desk';
import { cancelPlace } from '../classes/engine';
import { occurrenceAt, timetableOccurrences } from '../classes/occurrences';
import { centsOf, classSettings } from '../classes/settings';
import type { DateRow as ClassDateRow } from '../classes/store';
import { outbox } from '../mail-kinds';
import { sendRefunds } from '../payments/refunds';
import {
  lockPaidPayment,
  paidPaymentsOf,
  queueRefund,
  refundRest,
  type PaidPayment,
  type Refund,
} from '../payments/store';
import { stripeAccount } from '../payments/stripe';
import { now, sqlNow } from '../platform/clock';
import { query, transaction, type Queryable } from '../platform/db';
import { logAccess } from './access-log';
import { toCsv } from './csv';
import { cancelFromDesk } from './consultations';
import { withWaiverStatus } from './participants';

/** How far ahead the screen lists the timetable's classes nobody has booked yet. */
const CLASS_WEEKS = 4;
/** At most this many consultations, and as many sessions, are listed. */
const LIMIT = 300;

const iso = (value: Date | string | null) => (value ? new Date(value).toISOString() : null);

/** Reads outside a transaction, for the store functions that take one. */
const pool: Queryable = { query: async (sql, params) => ({ rows: await query(sql, params) }) };

/** Where a payment stands, from the booking's column and its paid online payment, if any. */
export function paymentView(
  payment: 'due' | 'held' | 'paid',
  amountCents: number,
  online: PaidPayment | undefined,
): PaymentView {
  if (online) {
    const refunded = online.refundedCents;
    return {
      state: refunded >= online.amountCents ? 'refunded' : 'paid-online',
      amountCents: online.amountCents,
      refundedCents: refunded,
      refundPendingCents: online.refundPendingCents,
      refundableCents: Math.max(0, online.amountCents - refunded),
    };
  }
  return {
    state: payment === 'paid' ? 'paid-studio' : payment === 'held' ? 'paying' : 'due',
    amountCents,
    refundedCents: 0,
    refundPendingCents: 0,
    refundableCents: 0,
  };
}

/** The first moment of today in the studio's zone. */
function startOfToday(at: Date, timeZone: string): Date {
  const today = zoned.localDate(zoned.instantOf(at), timeZone);
  return zoned.dateOf(zoned.startOfDay(today, timeZone));
}

interface ConsultationRow {
  id: string;
  starts_at: Date;
  ends_at: Date;
  name: string;
  email: string;
  phone: string;
  cancelled_at: Date | null;
  cancelled_by: string | null;
}

interface SessionRow extends ConsultationRow {
  session_type: string;
  session_title: string;
  place: 'studio' | 'home';
  street: string | null;
  postal_code: string | null;
  amount_cents: number;
  payment: 'due' | 'held' | 'paid';
  no_show_at: Date | null;
}

interface PlaceRow {
  id: string;
  class_date_id: string;
  status: 'booked' | 'offered' | 'cancelled';
  name: string;
  email: string;
  payment: 'due' | 'held' | 'paid';
  no_show: boolean;
}

type DateRow = Pick<
  ClassDateRow,
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

/** Everything the Bookings screen lists, from the start of today in the studio's zone. */
export async function bookingsOverview(at = now()): Promise<BookingsOverview> {
  const consultation = consultationSettings();
  const timeZone = consultation.timeZone;
  const from = startOfToday(at, timeZone);
  const settings = classSettings();
  const until = new Date(from.getTime() + CLASS_WEEKS * 7 * 86_400_000);

  const [consultations, sessions, dates] = await Promise.all([
    query<ConsultationRow>(
      `SELECT id, starts_at, ends_at, name, email, phone, cancelled_at, cancelled_by
         FROM consultation_bookings
        WHERE ends_at > $1 AND spam_reason IS NULL
        ORDER BY starts_at, id LIMIT ${LIMIT}`,
      [from.toISOString()],
    ),
    // A time held for a checkout that lapsed unpaid was never a booking: not listed.
    query<SessionRow>(
      `SELECT id, session_type, session_title, place, street, postal_code, starts_at, ends_at,
              name, email, phone, amount_cents, payment, no_show_at, cancelled_at, cancelled_by
         FROM session_bookings
        WHERE ends_at > $1 AND spam_reason IS NULL AND cancelled_by IS DISTINCT FROM 'checkout'
        ORDER BY starts_at, id LIMIT ${LIMIT}`,
      [from.toISOString()],
    ),
    query<DateRow>(
      `SELECT id, class_key, title, starts_at, ends_at, capacity, minimum, price_cents, added_by,
              cancelled_at, cancel_reason
         FROM class_dates WHERE ends_at > $1 ORDER BY starts_at`,
      [from.toISOString()],
    ),
  ]);
  // The live places; and the cancelled ones the studio cancelled, or that were paid online (she
  // may still refund them).
  const places = await query<PlaceRow>(
    `SELECT s.id, s.class_date_id, s.status, s.name, s.email, s.payment, s.no_show
       FROM class_seats s
      WHERE s.class_date_id = ANY($1::uuid[]) AND s.spam_reason IS NULL
        AND (s.status IN ('booked', 'offered')
             OR (s.status = 'cancelled' AND (s.cancelled_by <> 'visitor' OR EXISTS (
                   SELECT 1 FROM payments p WHERE p.booking_kind = 'class'
                      AND p.booking_id = s.id AND p.state = 'paid'))))
      ORDER BY s.seat_no NULLS LAST, s.created_at`,
    [dates.map((d) => d.id)],
  );
  const [sessionPaid, placePaid, rated] = await Promise.all([
    paidPaymentsOf(
      pool,
      'session',
      sessions.map((s) => s.id),
    ),
    paidPaymentsOf(
      pool,
      'class',
      places.map((p) => p.id),
    ),
    withWaiverStatus(
      [...consultations, ...sessions, ...places].map((row) => ({
        name: row.name,
        email: row.email,
        phone: 'phone' in row ? row.phone : '',
      })),
    ),
  ]);
  let next = 0;
  const person = (): BookedPerson => rated[next++];

  const policy = sessionPolicy();
  const live = (row: { cancelled_at: Date | null }) => row.cancelled_at === null;
  const toCome = (row: { starts_at: Date }) => new Date(row.starts_at) > at;
  const span = (row: { starts_at: Date; ends_at: Date }) => ({
    start: new Date(row.starts_at),
    end: new Date(row.ends_at),
  });

  const bookings: DeskBooking[] = [
    ...consultations.map((row): DeskBooking => ({
      kind: 'consultation',
      id: row.id,
      title: 'Consultation',
      address: null,
      start: iso(row.starts_at)!,
      end: iso(row.ends_at)!,
      person: person(),
      payment: null,
      noShow: false,
      cancelledAt: iso(row.cancelled_at),
      cancelledBy: row.cancelled_by,
      outsideHours:
        live(row) && toCome(row) && !withinHours(consultation.availability, span(row), timeZone),
    })),
    ...sessions.map((row): DeskBooking => {
      const type = sessionType(row.session_type, policy);
      return {
        kind: 'session',
        id: row.id,
        title: row.session_title,
        address: row.place === 'home' ? `${row.street ?? ''}, ${row.postal_code ?? ''}` : null,
        start: iso(row.starts_at)!,
        end: iso(row.ends_at)!,
        person: person(),
        payment: paymentView(row.payment, Number(row.amount_cents), sessionPaid.get(row.id)),
        noShow: row.no_show_at !== null,
        cancelledAt: iso(row.cancelled_at),
        cancelledBy: row.cancelled_by,
        outsideHours:
          live(row) &&
          toCome(row) &&
          (!type || !withinHours(type.availability, span(row), policy.timeZone)),
      };
    }),
  ].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));

  const priceOf = new Map(dates.map((d) => [d.id, Number(d.price_cents)]));
  const placesOf = new Map<string, DeskPlace[]>();
  for (const row of places) {
    const list = placesOf.get(row.class_date_id) ?? [];
    list.push({
      id: row.id,
      status: row.status,
      person: person(),
      payment: paymentView(row.payment, priceOf.get(row.class_date_id) ?? 0, placePaid.get(row.id)),
      noShow: row.no_show,
    });
    placesOf.set(row.class_date_id, list);
  }

  const classes: DeskClass[] = dates.map((row) => {
    const list = placesOf.get(row.id) ?? [];
    const booked = list.filter((p) => p.status === 'booked').length;
    return {
      id: row.id,
      key: row.class_key,
      title: row.title,
      start: iso(row.starts_at)!,
      end: iso(row.ends_at)!,
      capacity: Number(row.capacity),
      minimum: Number(row.minimum),
      priceCents: Number(row.price_cents),
      booked,
      cancelledAt: iso(row.cancelled_at),
      cancelReason: row.cancel_reason,
      single: row.added_by !== null,
      outsideTimetable:
        row.added_by === null &&
        live(row) &&
        booked > 0 &&
        toCome(row) &&
        !occurrenceAt(settings, row.class_key, new Date(row.starts_at)),
      places: list,
    };
  });
  // The timetable's dates nobody booked yet, so each can be seen, and cancelled ahead.
  const stored = new Set(dates.map((d) => `${d.class_key}@${new Date(d.starts_at).getTime()}`));
  for (const occurrence of timetableOccurrences(settings, from, until)) {
    if (occurrence.end <= at) continue;
    if (stored.has(`${occurrence.key}@${occurrence.start.getTime()}`)) continue;
    classes.push({
      id: null,
      key: occurrence.key,
      title: occurrence.title,
      start: occurrence.start.toISOString(),
      end: occurrence.end.toISOString(),
      capacity: occurrence.capacity,
      minimum: occurrence.minimum,
      priceCents: occurrence.priceCents,
      booked: 0,
      cancelledAt: null,
      cancelReason: null,
      single: false,
      outsideTimetable: false,
      places: [],
    });
  }
  classes.sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  const { timetable } = settings;
  return {
    timeZone,
    bookings,
    classes,
    timetable: timetable.classes.map((entry) => ({
      name: entry.name,
      time: entry.time,
      lengthMinutes: entry.lengthMinutes,
      capacity: entry.capacity ?? timetable.capacity,
      priceCents: entry.price === undefined ? settings.defaultPriceCents : centsOf(entry.price),
    })),
    defaults: {
      capacity: timetable.capacity,
      minimum: timetable.minimum,
      priceCents: settings.defaultPriceCents,
    },
  };
}

// ---- What she does on the screen

/** Why an action on one booking was refused; the route says it in her words. */
export type Refusal =
  | 'missing'
  | 'already-paid'
  | 'paying'
  | 'cancelled'
  | 'not-begun'
  | 'over'
  | 'not-paid-online'
  | 'refunded'
  | 'too-much';

export type Outcome<T = object> =
  | ({ ok: true } & T)
  | { ok: false; why: Refusal; /** At most this can still be refunded, in cents. */ most?: number };

/** A session or a class place: the bookings that have a price. */
export type PayableKind = 'session' | 'place';

interface Locked {
  payment: 'due' | 'held' | 'paid';
  /** Cancelled, or a place not booked (offered to the waitlist, lapsed). */
  gone: boolean;
  toCome: boolean;
}

/** A session or a place, locked for the rest of the transaction (none: a spam or lapsed one). */
async function lockBooking(
  tx: Queryable,
  kind: PayableKind,
  id: string,
): Promise<Locked | undefined> {
  const { rows } = await tx.query(
    kind === 'session'
      ? `SELECT payment, cancelled_at IS NOT NULL AS gone, starts_at > ${sqlNow()} AS to_come
           FROM session_bookings
          WHERE id = $1 AND spam_reason IS NULL AND cancelled_by IS DISTINCT FROM 'checkout'
            FOR UPDATE`
      : `SELECT s.payment, s.status <> 'booked' AS gone, d.starts_at > ${sqlNow()} AS to_come
           FROM class_seats s JOIN class_dates d ON d.id = s.class_date_id
          WHERE s.id = $1 AND s.spam_reason IS NULL AND s.status IN ('booked', 'cancelled')
            FOR UPDATE OF s`,
    [id],
  );
  const row = rows[0] as
    { payment: Locked['payment']; gone: boolean; to_come: boolean } | undefined;
  return row && { payment: row.payment, gone: row.gone, toCome: row.to_come };
}

/** Marks a session or a class place paid at the studio (by her address). */
export async function markPaidAtStudio(
  staff: Staff,
  kind: PayableKind,
  id: string,
): Promise<Outcome> {
  return transaction(async (tx): Promise<Outcome> => {
    const booking = await lockBooking(tx, kind, id);
    if (!booking) return { ok: false, why: 'missing' };
    if (booking.gone) return { ok: false, why: 'cancelled' };
    if (booking.payment === 'paid') return { ok: false, why: 'already-paid' };
    if (booking.payment === 'held') return { ok: false, why: 'paying' };
    await tx.query(
      `UPDATE ${kind === 'session' ? 'session_bookings' : 'class_seats'}
          SET payment = 'paid', paid_at = ${sqlNow()}, paid_by = $2, updated_at = ${sqlNow()}
        WHERE id = $1`,
      [id, staff.email],
    );
    await logAccess(
      staff,
      { action: 'mark-paid', recordKind: 'booking', recordId: id, detail: { kind } },
      tx,
    );
    return { ok: true };
  });
}

/** Marks (or unmarks) a session or a class place as a no-show, once it has begun. */
export async function markNoShow(
  staff: Staff,
  kind: PayableKind,
  id: string,
  noShow: boolean,
): Promise<Outcome> {
  return transaction(async (tx): Promise<Outcome> => {
    const booking = await lockBooking(tx, kind, id);
    if (!booking) return { ok: false, why: 'missing' };
    if (booking.gone) return { ok: false, why: 'cancelled' };
    if (booking.toCome) return { ok: false, why: 'not-begun' };
    if (kind === 'session') {
      await tx.query(
        `UPDATE session_bookings
            SET no_show_at = CASE WHEN $2 THEN ${sqlNow()} END, no_show_by = CASE WHEN $2 THEN $3 END,
                updated_at = ${sqlNow()}
          WHERE id = $1`,
        [id, noShow, staff.email],
      );
    } else {
      await markPlaceNoShow(tx, id, noShow);
    }
    await logAccess(
      staff,
      {
        action: noShow ? 'mark-no-show' : 'unmark-no-show',
        recordKind: 'booking',
        recordId: id,
        detail: { kind },
      },
      tx,
    );
    return { ok: true };
  });
}

export interface Done {
  /** Outbox ids, to send after the answer. */
  mails: string[];
  refunds: Refund[];
}

/** Sends the refunds, then the mails that tell of them. Stripe's faults leave a refund pending. */
export async function afterChange({ mails, refunds }: Done): Promise<void> {
  const account = stripeAccount();
  if (refunds.length > 0 && account) await sendRefunds(account, refunds);
  if (mails.length > 0) await outbox.deliverNow(mails);
}

/**
 * Cancels one booking with her note to the person, through its kind's own cancellation (the
 * same mails and calendar CANCEL as a visitor's cancel); a payment made online is refunded in
 * full, in the same transaction, so the mail composed after it can say so.
 */
export async function cancelOne(
  staff: Staff,
  kind: 'consultation' | PayableKind,
  id: string,
  note: string,
): Promise<Outcome<Done>> {
  if (kind === 'consultation') {
    const mails = await cancelFromDesk(id, note, staff, outbox);
    if (mails) return { ok: true, mails, refunds: [] };
    const [row] = await query<{ cancelled: boolean }>(
      `SELECT cancelled_at IS NOT NULL AS cancelled FROM consultation_bookings
        WHERE id = $1 AND spam_reason IS NULL`,
      [id],
    );
    return { ok: false, why: !row ? 'missing' : row.cancelled ? 'cancelled' : 'over' };
  }
  return transaction(async (tx): Promise<Outcome<Done>> => {
    const booking = await lockBooking(tx, kind, id);
    if (!booking) return { ok: false, why: 'missing' };
    if (booking.gone) return { ok: false, why: 'cancelled' };
    const refund = await refundRest(
      tx,
      kind === 'session' ? 'session' : 'class',
      id,
      staff.email,
      'studio',
    );
    let mails: string[] | undefined;
    if (kind === 'session') {
      const sequence = await cancelSession(tx, id, staff.email, note || null);
      if (sequence !== undefined) {
        const ref = mailRef(id, sequence);
        mails = [
          await outbox.enqueue(tx, 'session-cancel-visitor', ref),
          await outbox.enqueue(tx, 'session-cancel-studio', ref),
        ].filter((m): m is string => m !== undefined);
      }
    } else {
      mails = await cancelPlace(tx, id, staff.email, outbox, note || null);
    }
    // Over already (a session that has ended): nothing changes, the refund included.
    if (!mails) throw new Over();
    await logAccess(
      staff,
      {
        action: kind === 'session' ? 'cancel-session' : 'cancel-place',
        recordKind: 'booking',
        recordId: id,
        detail: { note: note !== '', refundedCents: refund?.amountCents ?? 0 },
      },
      tx,
    );
    return { ok: true, mails, refunds: refund ? [refund] : [] };
  }).catch((error: unknown) => {
    if (error instanceof Over) return { ok: false, why: 'over' } as const;
    throw error;
  });
}

/** Rolls a transaction back that found its booking over. */
class Over extends Error {}

/**
 * Cancels one date of a class (of the timetable, or added on the desk) before it begins:
 * everyone booked and waiting told, her calendar too, and what each paid online refunded.
 */
export async function cancelWholeClass(
  staff: Staff,
  key: string,
  start: Date,
  note: string,
): Promise<Outcome<Done & { told: number }>> {
  if (start.getTime() <= now().getTime()) return { ok: false, why: 'over' };
  return transaction(async (tx): Promise<Outcome<Done & { told: number }>> => {
    const { rows } = await tx.query(
      `SELECT id, cancelled_at FROM class_dates WHERE class_key = $1 AND starts_at = $2
          FOR UPDATE`,
      [key, start.toISOString()],
    );
    const stored = rows[0] as { id: string; cancelled_at: Date | null } | undefined;
    if (stored?.cancelled_at) return { ok: false, why: 'cancelled' };
    const booked = stored
      ? ((
          await tx.query(
            `SELECT id FROM class_seats WHERE class_date_id = $1 AND status = 'booked'`,
            [stored.id],
          )
        ).rows as { id: string }[])
      : [];
    const refunds: Refund[] = [];
    for (const place of booked) {
      const refund = await refundRest(tx, 'class', place.id, staff.email, 'class-cancelled');
      if (refund) refunds.push(refund);
    }
    const mails = await cancelClassDate(tx, key, start, staff.email, outbox, note || null);
    if (!mails) return { ok: false, why: 'missing' };
    await logAccess(
      staff,
      {
        action: 'cancel-class',
        recordKind: 'booking',
        recordId: stored?.id ?? key,
        detail: {
          start: start.toISOString(),
          note: note !== '',
          places: booked.length,
          refunds: refunds.length,
        },
      },
      tx,
    );
    return { ok: true, mails, refunds, told: booked.length };
  });
}

/**
 * Refunds a payment made online for a session or a class place: `amountCents`, or all that is
 * left when none is given. `request` names the press (the desk makes one each time the refund is
 * asked for), so the same press sent again refunds once; and the database refuses more than was
 * paid, whoever asks. The person is told by mail how much was refunded (queued with the refund,
 * once per press): sent after the answer once Stripe said yes (`mails`); else the outbox sends
 * it later, and not at all if Stripe refuses the refund.
 */
export async function refundPayment(
  staff: Staff,
  kind: PayableKind,
  id: string,
  amountCents: number | undefined,
  request: string,
): Promise<Outcome<{ refund: Refund; confirmed: boolean; mails: string[] }>> {
  const done = await transaction(
    async (tx): Promise<Outcome<{ refund: Refund; mail?: string }>> => {
      const paid = await lockPaidPayment(tx, kind === 'session' ? 'session' : 'class', id);
      if (!paid) {
        return {
          ok: false,
          why: (await lockBooking(tx, kind, id)) ? 'not-paid-online' : 'missing',
        };
      }
      const key = `studio:${paid.id}:${request}`;
      // The same press again: its refund as it was asked, nothing more.
      const { rows } = await tx.query(
        'SELECT amount_cents FROM payment_refunds WHERE idempotency_key = $1',
        [`refund:${key}`],
      );
      const asked = rows[0] as { amount_cents: number } | undefined;
      const repeated = asked !== undefined;
      const left = paid.amountCents - paid.refundedCents;
      const amount = asked ? Number(asked.amount_cents) : (amountCents ?? left);
      if (!repeated && left <= 0) return { ok: false, why: 'refunded' };
      if (!repeated && amount > left) return { ok: false, why: 'too-much', most: left };
      const refund = await queueRefund(tx, paid, {
        amountCents: amount,
        reason: 'studio',
        requestedBy: staff.email,
        key,
      });
      let mail: string | undefined;
      if (!repeated) {
        mail = await outbox.enqueue(tx, 'payment-refunded', `${id}:refund-${refund.id}`);
        await logAccess(
          staff,
          {
            action: 'refund',
            recordKind: 'booking',
            recordId: id,
            detail: { kind, amountCents: amount, full: amount === paid.amountCents },
          },
          tx,
        );
      }
      return { ok: true, refund, mail };
    },
  );
  if (!done.ok) return done;
  const account = stripeAccount();
  const sent =
    done.refund.state === 'pending' && account
      ? await sendRefunds(account, [done.refund])
      : undefined;
  const confirmed = done.refund.state === 'succeeded' || (sent?.succeeded ?? 0) > 0;
  return {
    ok: true,
    refund: done.refund,
    confirmed,
    mails: confirmed && done.mail ? [done.mail] : [],
  };
}

// ---- The CSV for her bookkeeping

const money = (cents: number | null) => (cents === null ? '' : (cents / 100).toFixed(2));
const utcText = (date: Date | string | null) =>
  date ? new Date(date).toISOString().slice(0, 19).replace('T', ' ') : '';

const PAYMENT_WORDS: Record<PaymentView['state'], string> = {
  due: 'Due at the studio',
  paying: 'Paying online',
  'paid-studio': 'Paid at the studio',
  'paid-online': 'Paid online',
  refunded: 'Refunded',
};

interface CsvRow {
  kind: 'session' | 'class';
  id: string;
  what: string;
  starts_at: Date;
  name: string;
  email: string;
  price_cents: number;
  payment: 'due' | 'held' | 'paid';
  paid_at: Date | null;
  paid_by: string | null;
  cancelled_at: Date | null;
  no_show: boolean;
  amount_cents: number | null;
  payment_intent: string | null;
  fee_cents: number | null;
  online_paid_at: Date | null;
  refunded: number;
  refunds: string | null;
}

/**
 * The sessions and class places whose time falls in the range (days in `filters.tz`), by time:
 * each with its price, where its payment stands, the amount paid online with Stripe's reference
 * and fee (when Stripe reported it), and its refunds. Consultations cost nothing: not listed.
 */
export async function bookingsCsv(filters: {
  from?: string;
  to?: string;
  tz: string;
}): Promise<{ csv: string; rows: number }> {
  const params: unknown[] = [filters.from ?? null, filters.to ?? null, filters.tz];
  const within = (column: string) =>
    `($1::date IS NULL OR ${column} >= ($1::date::timestamp AT TIME ZONE $3))
     AND ($2::date IS NULL OR ${column} < (($2::date + 1)::timestamp AT TIME ZONE $3))`;
  const paid = (kind: string, id: string) => `LEFT JOIN LATERAL (
       SELECT p.amount_cents, p.payment_intent, p.fee_cents, p.paid_at,
              coalesce(sum(r.amount_cents) FILTER (WHERE r.state <> 'failed'), 0)::int AS refunded,
              string_agg(to_char(r.amount_cents / 100.0, 'FM999990.00') || ' ' || r.state
                         || coalesce(' ' || r.stripe_refund, ''), '; ' ORDER BY r.created_at) AS refunds
         FROM payments p LEFT JOIN payment_refunds r ON r.payment_id = p.id
        WHERE p.booking_kind = '${kind}' AND p.booking_id = ${id} AND p.state = 'paid'
        GROUP BY p.id) pay ON true`;
  const rows = await query<CsvRow>(
    `SELECT 'session' AS kind, b.id, b.session_title AS what, b.starts_at, b.name, b.email,
            b.amount_cents AS price_cents, b.payment, b.paid_at, b.paid_by, b.cancelled_at,
            b.no_show_at IS NOT NULL AS no_show, pay.amount_cents, pay.payment_intent,
            pay.fee_cents, pay.paid_at AS online_paid_at, coalesce(pay.refunded, 0) AS refunded,
            pay.refunds
       FROM session_bookings b ${paid('session', 'b.id')}
      WHERE b.spam_reason IS NULL AND b.cancelled_by IS DISTINCT FROM 'checkout'
        AND ${within('b.starts_at')}
     UNION ALL
     SELECT 'class', s.id, d.title, d.starts_at, s.name, s.email, d.price_cents, s.payment,
            s.paid_at, s.paid_by, s.cancelled_at, s.no_show, pay.amount_cents, pay.payment_intent,
            pay.fee_cents, pay.paid_at, coalesce(pay.refunded, 0), pay.refunds
       FROM class_seats s JOIN class_dates d ON d.id = s.class_date_id ${paid('class', 's.id')}
      WHERE s.spam_reason IS NULL AND s.status IN ('booked', 'cancelled')
        AND ${within('d.starts_at')}
      ORDER BY 4, 2`,
    params,
  );
  const header = [
    'Booking ID',
    'Kind',
    'What',
    'Starts at (UTC)',
    'Name',
    'Email',
    'Status',
    'Price',
    'Payment',
    'Paid at (UTC)',
    'Recorded paid by',
    'Paid online',
    'Stripe reference',
    'Stripe fee',
    'Refunded',
    'Refunds',
  ];
  const lines = rows.map((row) => {
    const online =
      row.amount_cents === null
        ? undefined
        : ({
            amountCents: Number(row.amount_cents),
            refundedCents: Number(row.refunded),
            refundPendingCents: 0,
          } as PaidPayment);
    const view = paymentView(row.payment, Number(row.price_cents), online);
    return [
      row.id,
      row.kind === 'session' ? 'Session' : 'Class',
      row.what,
      utcText(row.starts_at),
      row.name,
      row.email,
      row.cancelled_at ? 'Cancelled' : row.no_show ? 'No-show' : 'Booked',
      money(Number(row.price_cents)),
      row.cancelled_at && view.state === 'due' ? 'Nothing due' : PAYMENT_WORDS[view.state],
      utcText(row.online_paid_at ?? row.paid_at),
      row.amount_cents === null ? (row.paid_by ?? '') : 'Stripe',
      money(row.amount_cents === null ? null : Number(row.amount_cents)),
      row.payment_intent ?? '',
      money(row.fee_cents === null ? null : Number(row.fee_cents)),
      money(Number(row.refunded)),
      row.refunds ?? '',
    ];
  });
  return { csv: toCsv(header, lines), rows: lines.length };
}
