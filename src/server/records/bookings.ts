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
import {
  STATUS_WORDS,
  type BookedPerson,
  type BookingKind,
  type BookingsOverview,
  type DeskBooking,
  type DeskClass,
  type DeskPlace,
  type PayableKind,
  type PaymentView,
} from '../../shared/desk-api';
import { oneOf } from '../../shared/one-session';
import { clockTime, isoDay, zoneName } from '../../shared/time-format';
import { withinHours } from '../../shared/booking/window-starts';
import * as zoned from '../../shared/booking/zoned';
import type { Staff } from '../auth/sessions';
import { consultationSettings } from '../booking/consultation';
import { consultationState, consultationsFrom } from '../booking/store';
import type { DayRange } from '../bookings/range';
import { sessionsForCsv, sessionsFrom, type CsvSessionRow } from '../booking/session-store';
import { sessionPolicy, sessionType } from '../booking/policy';
import { PRICED_KINDS } from '../bookings/kinds';
import { cancelClassDate } from '../classes/desk';
import { occurrenceAt, timetableOccurrences } from '../classes/occurrences';
import { centsOf, classSettings } from '../classes/settings';
import {
  bookedPlaceIds,
  classDatesFrom,
  lockDateAt,
  placesForCsv,
  placesOfDates,
  type CsvPlaceRow,
} from '../classes/store';
import { latestWaiverPhones } from '../waiver/store';
import { outbox } from '../mail-kinds';
import { sendRefunds } from '../payments/refunds';
import {
  lockPaidPayment,
  paidPaymentsOf,
  queueRefund,
  refundAskedUnder,
  refundRest,
  refundState,
  type PaidPayment,
  type Refund,
} from '../payments/store';
import { stripeAccount } from '../payments/stripe';
import { now } from '../platform/clock';
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

/** What the desk shows of a payment made online. */
type OnlineMoney = Pick<
  PaidPayment,
  'amountCents' | 'refundedCents' | 'refundPendingCents' | 'refused'
>;

/** Where a payment stands, from the booking's column and its paid online payment, if any. */
export function paymentView(
  payment: 'due' | 'held' | 'paid',
  amountCents: number,
  online: OnlineMoney | undefined,
): PaymentView {
  if (online) {
    const refunded = online.refundedCents;
    return {
      state: refunded >= online.amountCents ? 'refunded' : 'paid-online',
      amountCents: online.amountCents,
      refundedCents: refunded,
      refundPendingCents: online.refundPendingCents,
      refundableCents: Math.max(0, online.amountCents - refunded),
      refused: online.refused,
    };
  }
  return {
    state: payment === 'paid' ? 'paid-studio' : payment === 'held' ? 'paying' : 'due',
    amountCents,
    refundedCents: 0,
    refundPendingCents: 0,
    refundableCents: 0,
    refused: [],
  };
}

/** The first moment of today in the studio's zone. */
function startOfToday(at: Date, timeZone: string): Date {
  const today = zoned.localDate(zoned.instantOf(at), timeZone);
  return zoned.dateOf(zoned.startOfDay(today, timeZone));
}

/**
 * The places of these class dates the screen lists: the live ones, and the cancelled ones the
 * studio cancelled or that were paid online (she may still refund them); with their payments.
 */
async function placesListed(dateIds: string[]) {
  const all = await placesOfDates(dateIds);
  const paid = await paidPaymentsOf(
    pool,
    'place',
    all.map((p) => p.id),
  );
  const places = all.filter(
    (p) => p.status !== 'cancelled' || p.cancelled_by !== 'visitor' || paid.has(p.id),
  );
  return { places, paid };
}

/** Everything the Bookings screen lists, from the start of today in the studio's zone. */
export async function bookingsOverview(at = now()): Promise<BookingsOverview> {
  const consultation = consultationSettings();
  const timeZone = consultation.timeZone;
  const from = startOfToday(at, timeZone);
  const settings = classSettings();
  const until = new Date(from.getTime() + CLASS_WEEKS * 7 * 86_400_000);

  const [consultations, sessions, dates] = await Promise.all([
    consultationsFrom(from, LIMIT),
    sessionsFrom(from, LIMIT),
    classDatesFrom(from),
  ]);
  const [sessionPaid, { places, paid: placePaid }] = await Promise.all([
    paidPaymentsOf(
      pool,
      'session',
      sessions.map((s) => s.id),
    ),
    placesListed(dates.map((d) => d.id)),
  ]);
  const rated = await withWaiverStatus(
    [...consultations, ...sessions, ...places].map((row) => ({
      name: row.name,
      email: row.email,
      phone: 'phone' in row ? row.phone : '',
    })),
  );
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
        title: oneOf(row.session_title),
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
      minimum: Math.min(entry.minimum ?? timetable.minimum, entry.capacity ?? timetable.capacity),
      priceCents: entry.price === undefined ? settings.defaultPriceCents : centsOf(entry.price),
    })),
    defaults: {
      capacity: timetable.capacity,
      minimum: timetable.minimum,
      priceCents: settings.defaultPriceCents,
      cutoffHours: timetable.cutoffHours,
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
  | 'too-much'
  | 'stripe-refused'
  | 'not-paid-studio';

export type Outcome<T = object> =
  | ({ ok: true } & T)
  | {
      ok: false;
      why: Refusal;
      /** At most this can still be refunded, in cents. */
      most?: number;
      /** Stripe's words, when Stripe refused a refund. */
      words?: string;
    };

/**
 * Marks a session or a class place paid at the studio (by her address), or, `paid` false, takes
 * that mark back (a press by mistake): only a mark made on the desk, never a payment made online
 * (that is refunded instead).
 */
export async function markPaidAtStudio(
  staff: Staff,
  kind: PayableKind,
  id: string,
  paid = true,
): Promise<Outcome> {
  const priced = PRICED_KINDS[kind];
  return transaction(async (tx): Promise<Outcome> => {
    const booking = await priced.lock(tx, id);
    if (!booking) return { ok: false, why: 'missing' };
    if (booking.gone) return { ok: false, why: 'cancelled' };
    if (booking.payment === 'held') return { ok: false, why: 'paying' };
    if (paid) {
      if (booking.payment === 'paid') return { ok: false, why: 'already-paid' };
    } else {
      const online = (await paidPaymentsOf(tx, kind, [id])).has(id);
      if (booking.payment !== 'paid' || booking.paidBy === 'checkout' || online) {
        return { ok: false, why: 'not-paid-studio' };
      }
    }
    await priced.setPaidAtStudio(tx, id, paid ? staff.email : null);
    await logAccess(
      staff,
      {
        action: paid ? 'mark-paid' : 'unmark-paid',
        recordKind: 'booking',
        recordId: id,
        detail: { kind },
      },
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
    const priced = PRICED_KINDS[kind];
    const booking = await priced.lock(tx, id);
    if (!booking) return { ok: false, why: 'missing' };
    if (booking.gone) return { ok: false, why: 'cancelled' };
    if (booking.toCome) return { ok: false, why: 'not-begun' };
    await priced.setNoShow(tx, id, noShow ? staff.email : null);
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
  if (refunds.length > 0 && account) await sendRefunds(account, outbox, refunds);
  if (mails.length > 0) await outbox.deliverNow(mails);
}

/**
 * Cancels one booking with her note to the person, through its kind's own cancellation (the
 * same mails and calendar CANCEL as a visitor's cancel); a payment made online is refunded in
 * full, in the same transaction, so the mail composed after it can say so.
 */
export const cancelOne = (staff: Staff, kind: BookingKind, id: string, note: string) =>
  CANCELS[kind](staff, id, note);

type Cancel = (staff: Staff, id: string, note: string) => Promise<Outcome<Done>>;

/** A consultation: free, so nothing to refund. */
const cancelConsultation: Cancel = async (staff, id, note) => {
  const mails = await cancelFromDesk(id, note, staff, outbox);
  if (mails) return { ok: true, mails, refunds: [] };
  const state = await consultationState(id);
  return { ok: false, why: state === 'live' ? 'over' : state };
};

const CANCELS: Record<BookingKind, Cancel> = {
  consultation: cancelConsultation,
  session: (staff, id, note) => cancelPriced(staff, 'session', id, note),
  place: (staff, id, note) => cancelPriced(staff, 'place', id, note),
};

async function cancelPriced(
  staff: Staff,
  kind: PayableKind,
  id: string,
  note: string,
): Promise<Outcome<Done>> {
  return transaction(async (tx): Promise<Outcome<Done>> => {
    const priced = PRICED_KINDS[kind];
    const booking = await priced.lock(tx, id);
    if (!booking) return { ok: false, why: 'missing' };
    if (booking.gone) return { ok: false, why: 'cancelled' };
    const refund = await refundRest(tx, kind, id, staff.email, 'studio');
    const mails = await priced.cancel(tx, id, staff.email, note || null, outbox);
    // Over already (a session that has ended): nothing changes, the refund included.
    if (!mails) throw new Over();
    await logAccess(
      staff,
      {
        action: priced.cancelAction,
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
    const stored = await lockDateAt(tx, key, start);
    if (stored?.cancelledAt) return { ok: false, why: 'cancelled' };
    const booked = stored ? await bookedPlaceIds(tx, stored.id) : [];
    const refunds: Refund[] = [];
    for (const placeId of booked) {
      const refund = await refundRest(tx, 'place', placeId, staff.email, 'class-cancelled');
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
      const paid = await lockPaidPayment(tx, kind, id);
      if (!paid) {
        return {
          ok: false,
          why: (await PRICED_KINDS[kind].lock(tx, id)) ? 'not-paid-online' : 'missing',
        };
      }
      const key = `studio:${paid.id}:${request}`;
      // The same press again: its refund as it was asked, nothing more.
      const asked = await refundAskedUnder(tx, key);
      const repeated = asked !== undefined;
      const left = paid.amountCents - paid.refundedCents;
      const amount = asked ?? amountCents ?? left;
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
  if (done.refund.state === 'pending' && account) await sendRefunds(account, outbox, [done.refund]);
  const settled = await refundState(done.refund.id);
  if (settled.state === 'failed') return { ok: false, why: 'stripe-refused', words: settled.words };
  const confirmed = settled.state === 'succeeded';
  return {
    ok: true,
    refund: done.refund,
    confirmed,
    mails: confirmed && done.mail ? [done.mail] : [],
  };
}

// ---- The CSV for her bookkeeping

const money = (cents: number | null) => (cents === null ? '' : (cents / 100).toFixed(2));

const PAYMENT_WORDS: Record<PaymentView['state'], string> = {
  due: 'Due at the studio',
  paying: 'Paying online',
  'paid-studio': 'Paid at the studio',
  'paid-online': 'Paid online',
  refunded: 'Refunded',
};

/** The Kind and What columns of a booking's line. */
const CSV_KIND: Record<PayableKind, (row: CsvRow) => [string, string]> = {
  session: (row) => [row.place === 'home' ? 'In-home session' : 'Session', oneOf(row.what)],
  place: (row) => ['Class', row.what],
};

type CsvRow = (CsvSessionRow | CsvPlaceRow) & {
  phone: string;
  amount_cents: number | null;
  payment_intent: string | null;
  fee_cents: number | null;
  online_paid_at: Date | null;
  refunded: number;
  refunds: string | null;
};

/**
 * The sessions and class places whose time falls in the range (days in `filters.tz`), by time:
 * each with its day and start on the studio's clock, in two columns a spreadsheet reads as a
 * date and a time, who booked (a class place, which asks no phone, takes the phone of their
 * latest waiver), whether a waiver covers them, a no-show, its price, where its payment stands,
 * the amount paid online with Stripe's reference and fee (when Stripe reported it), and its
 * refunds; the booking's number last. Consultations cost nothing: not listed.
 */
export async function bookingsCsv(filters: DayRange): Promise<{ csv: string; rows: number }> {
  const [sessions, places] = await Promise.all([sessionsForCsv(filters), placesForCsv(filters)]);
  const [sessionPaid, placePaid, phones] = await Promise.all([
    paidPaymentsOf(
      pool,
      'session',
      sessions.map((r) => r.id),
    ),
    paidPaymentsOf(
      pool,
      'place',
      places.map((r) => r.id),
    ),
    latestWaiverPhones([...sessions, ...places].map((r) => r.email)),
  ]);
  const paidOf = { session: sessionPaid, place: placePaid };
  const rows: CsvRow[] = [...sessions, ...places]
    .map((row): CsvRow => {
      const paid = paidOf[row.kind].get(row.id);
      return {
        ...row,
        phone: row.phone || phones.get(row.email.toLowerCase()) || '',
        amount_cents: paid?.amountCents ?? null,
        payment_intent: paid?.paymentIntent ?? null,
        fee_cents: paid?.feeCents ?? null,
        online_paid_at: paid?.paidAt ?? null,
        refunded: paid?.refundedCents ?? 0,
        refunds: paid?.refundsLine ?? null,
      };
    })
    .sort(
      (a, b) =>
        new Date(a.starts_at).getTime() - new Date(b.starts_at).getTime() ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  const { timeZone } = sessionPolicy();
  const zone = zoneName(timeZone);
  const day = (at: Date | null) => (at ? isoDay(at, timeZone) : '');
  const clock = (at: Date | null) => (at ? clockTime(at, timeZone) : '');
  const people = await withWaiverStatus(rows);
  const header = [
    'Date',
    `Starts at (${zone})`,
    'Kind',
    'What',
    'Name',
    'Email',
    'Phone',
    'Waiver',
    'Status',
    'No-show',
    'Price',
    'Payment',
    `Paid on (${zone})`,
    'Recorded paid by',
    'Paid online',
    'Stripe reference',
    'Stripe fee',
    'Refunded',
    'Refunds',
    'Booking number',
  ];
  const lines = people.map((row) => {
    const online =
      row.amount_cents === null
        ? undefined
        : ({
            amountCents: Number(row.amount_cents),
            refundedCents: Number(row.refunded),
            refundPendingCents: 0,
            refused: [],
          } satisfies OnlineMoney);
    const view = paymentView(row.payment, Number(row.price_cents), online);
    const paidAt = row.online_paid_at ?? row.paid_at;
    return [
      day(row.starts_at),
      clock(row.starts_at),
      ...CSV_KIND[row.kind](row),
      row.name,
      row.email,
      row.phone,
      STATUS_WORDS[row.waiverStatus],
      row.cancelled_at ? 'Cancelled' : 'Booked',
      row.no_show ? 'Yes' : 'No',
      money(Number(row.price_cents)),
      row.cancelled_at && view.state === 'due'
        ? 'Nothing due'
        : row.place === 'home' && (view.state === 'due' || view.state === 'paid-studio')
          ? PAYMENT_WORDS[view.state].replace('at the studio', 'at their home')
          : PAYMENT_WORDS[view.state],
      day(paidAt),
      row.amount_cents === null ? (row.paid_by ?? '') : 'Stripe',
      money(row.amount_cents === null ? null : Number(row.amount_cents)),
      row.payment_intent ?? '',
      money(row.fee_cents === null ? null : Number(row.fee_cents)),
      money(Number(row.refunded)),
      row.refunds ?? '',
      row.id,
    ];
  });
  return { csv: toCsv(header, lines), rows: lines.length };
}
