/**
 * The payments tables (migration 0090): a row per Stripe Checkout Session opened for a booking,
 * its refunds, and every Stripe event handled, by id. Each function runs in the caller's
 * transaction.
 */
import { randomUUID } from 'node:crypto';
import { sqlNow } from '../platform/clock';
import { dollars as dollarsOf } from '../../shared/money';
import { query, type Queryable } from '../platform/db';

export type BookingKind = 'session' | 'class';
export type RefundReason = 'policy' | 'taken' | 'class-cancelled' | 'studio';

export interface Payment {
  id: string;
  bookingKind: BookingKind;
  bookingId: string;
  checkoutSession: string;
  amountCents: number;
  currency: string;
  state: 'open' | 'paid' | 'expired';
  paymentIntent: string | null;
  expiresAt: Date;
}

export interface Refund {
  id: string;
  paymentId: string;
  paymentIntent: string;
  amountCents: number;
  reason: RefundReason;
  idempotencyKey: string;
  state: 'pending' | 'succeeded' | 'failed';
  stripeRefund: string | null;
}

interface PaymentRow {
  id: string;
  booking_kind: BookingKind;
  booking_id: string;
  checkout_session: string;
  amount_cents: number;
  currency: string;
  state: Payment['state'];
  payment_intent: string | null;
  expires_at: Date | string;
}

const paymentOf = (row: PaymentRow): Payment => ({
  id: row.id,
  bookingKind: row.booking_kind,
  bookingId: row.booking_id,
  checkoutSession: row.checkout_session,
  amountCents: Number(row.amount_cents),
  currency: row.currency,
  state: row.state,
  paymentIntent: row.payment_intent,
  expiresAt: new Date(row.expires_at),
});

/** The checkout just opened for a held booking. */
export async function recordCheckout(
  tx: Queryable,
  checkout: Omit<Payment, 'id' | 'state' | 'paymentIntent'>,
): Promise<Payment> {
  const { rows } = await tx.query(
    `INSERT INTO payments (id, booking_kind, booking_id, checkout_session, amount_cents, currency,
                           expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, ${sqlNow()})
     ON CONFLICT (checkout_session) DO UPDATE SET checkout_session = EXCLUDED.checkout_session
     RETURNING *`,
    [
      randomUUID(),
      checkout.bookingKind,
      checkout.bookingId,
      checkout.checkoutSession,
      checkout.amountCents,
      checkout.currency,
      checkout.expiresAt.toISOString(),
    ],
  );
  return paymentOf(rows[0] as PaymentRow);
}

/** The payment of a Checkout Session, locked for the rest of the transaction. */
export async function lockPaymentOfCheckout(
  tx: Queryable,
  checkoutSession: string,
): Promise<Payment | undefined> {
  const { rows } = await tx.query('SELECT * FROM payments WHERE checkout_session = $1 FOR UPDATE', [
    checkoutSession,
  ]);
  return rows[0] ? paymentOf(rows[0] as PaymentRow) : undefined;
}

/** A booking's paid payment, if any. */
export async function paidPaymentOf(
  tx: Queryable,
  kind: BookingKind,
  bookingId: string,
): Promise<Payment | undefined> {
  const { rows } = await tx.query(
    `SELECT * FROM payments WHERE booking_kind = $1 AND booking_id = $2 AND state = 'paid'`,
    [kind, bookingId],
  );
  return rows[0] ? paymentOf(rows[0] as PaymentRow) : undefined;
}

export async function markPaid(tx: Queryable, id: string, paymentIntent: string): Promise<void> {
  await tx.query(
    `UPDATE payments SET state = 'paid', payment_intent = $2, paid_at = ${sqlNow()}
      WHERE id = $1 AND state <> 'paid'`,
    [id, paymentIntent],
  );
}

export async function markExpired(tx: Queryable, id: string): Promise<void> {
  await tx.query(`UPDATE payments SET state = 'expired' WHERE id = $1 AND state = 'open'`, [id]);
}

/**
 * A refund to be sent to Stripe, written before Stripe is asked. `key` names the decision (one
 * per cause: `taken:<payment>`, `policy:<payment>`, `studio:<payment>:<n>`): the same decision
 * made again returns the refund already written, never a second one. More than was paid is
 * refused by the database (payment_refunds_within_paid).
 */
export async function queueRefund(
  tx: Queryable,
  payment: Payment,
  {
    amountCents,
    reason,
    requestedBy,
    key,
  }: {
    amountCents: number;
    reason: RefundReason;
    requestedBy: string;
    key: string;
  },
): Promise<Refund> {
  await tx.query(
    `INSERT INTO payment_refunds (id, payment_id, amount_cents, reason, requested_by,
                                  idempotency_key, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, ${sqlNow()})
     ON CONFLICT (idempotency_key) DO NOTHING`,
    [randomUUID(), payment.id, amountCents, reason, requestedBy, `refund:${key}`],
  );
  const { rows } = await tx.query(
    `SELECT r.*, p.payment_intent FROM payment_refunds r JOIN payments p ON p.id = r.payment_id
      WHERE r.idempotency_key = $1`,
    [`refund:${key}`],
  );
  return refundOf(rows[0] as RefundRow);
}

interface RefundRow {
  id: string;
  payment_id: string;
  payment_intent: string;
  amount_cents: number;
  reason: RefundReason;
  idempotency_key: string;
  state: Refund['state'];
  stripe_refund: string | null;
}

const refundOf = (row: RefundRow): Refund => ({
  id: row.id,
  paymentId: row.payment_id,
  paymentIntent: row.payment_intent,
  amountCents: Number(row.amount_cents),
  reason: row.reason,
  idempotencyKey: row.idempotency_key,
  state: row.state,
  stripeRefund: row.stripe_refund,
});

/** Refunds Stripe has not yet confirmed, oldest first. */
export async function pendingRefunds(tx: Queryable, ids?: string[]): Promise<Refund[]> {
  const { rows } = await tx.query(
    `SELECT r.*, p.payment_intent FROM payment_refunds r JOIN payments p ON p.id = r.payment_id
      WHERE r.state = 'pending' AND ($1::uuid[] IS NULL OR r.id = ANY($1::uuid[]))
      ORDER BY r.created_at`,
    [ids ?? null],
  );
  return (rows as RefundRow[]).map(refundOf);
}

export async function settleRefund(
  tx: Queryable,
  id: string,
  outcome: { stripeRefund: string; state: 'succeeded' | 'pending' | 'failed' } | { error: string },
): Promise<void> {
  if ('error' in outcome) {
    await tx.query('UPDATE payment_refunds SET attempts = attempts + 1, error = $2 WHERE id = $1', [
      id,
      outcome.error,
    ]);
    return;
  }
  await tx.query(
    `UPDATE payment_refunds
        SET stripe_refund = $2, state = $3, attempts = attempts + 1, error = NULL,
            settled_at = CASE WHEN $3 = 'pending' THEN NULL ELSE ${sqlNow()} END
      WHERE id = $1`,
    [id, outcome.stripeRefund, outcome.state],
  );
}

/**
 * Claims a Stripe event for this transaction: false when it was handled already (a redelivery,
 * or the same event sent twice at once, which waits here for the first to commit), and then
 * nothing else in the transaction may change. The outcome is written by `eventOutcome`.
 */
export async function claimEvent(
  tx: Queryable,
  event: { id: string; type: string },
): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO stripe_events (id, type, outcome, received_at)
     VALUES ($1, $2, 'handling', ${sqlNow()})
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [event.id, event.type],
  );
  return rows.length === 1;
}

/** What the site did with the event, for the log and the desk. */
export async function eventOutcome(tx: Queryable, id: string, outcome: string): Promise<void> {
  await tx.query('UPDATE stripe_events SET outcome = $2 WHERE id = $1', [id, outcome]);
}

/**
 * A booking paid online and cancelled within the policy: its payment refunded in full, once
 * (the decision's key is the payment's). None when it was not paid online.
 */
export async function refundInFull(
  tx: Queryable,
  kind: BookingKind,
  bookingId: string,
  requestedBy: string,
): Promise<Refund[]> {
  const paid = await paidPaymentOf(tx, kind, bookingId);
  if (!paid) return [];
  return [
    await queueRefund(tx, paid, {
      amountCents: paid.amountCents,
      reason: 'policy',
      requestedBy,
      key: `policy:${paid.id}`,
    }),
  ];
}

/**
 * The refund a `payment-refunded` mail tells of, from its ref `<booking id>:refund-<refund id>`:
 * its booking, amount and reason, and the payment it gives back (of it), when it is a refund of a
 * `kind` booking.
 */
export async function refundToTell(
  ref: string,
  kind: BookingKind,
): Promise<
  | {
      bookingId: string;
      amountCents: number;
      paidCents: number;
      reason: RefundReason;
      state: Refund['state'];
    }
  | undefined
> {
  const refundId = /^[0-9a-f-]{36}:refund-([0-9a-f-]{36})$/.exec(ref)?.[1];
  if (!refundId) return undefined;
  const [row] = await query<{
    booking_id: string;
    amount_cents: number;
    paid_cents: number;
    reason: RefundReason;
    state: Refund['state'];
  }>(
    `SELECT p.booking_id, r.amount_cents, p.amount_cents AS paid_cents, r.reason, r.state
       FROM payment_refunds r JOIN payments p ON p.id = r.payment_id
      WHERE r.id = $1 AND p.booking_kind = $2`,
    [refundId, kind],
  );
  return (
    row && {
      bookingId: row.booking_id,
      amountCents: Number(row.amount_cents),
      paidCents: Number(row.paid_cents),
      reason: row.reason,
      state: row.state,
    }
  );
}

/**
 * What a mail says of a refund she made on the desk, the booking left as it is: "Anna has
 * refunded your payment of $120 … in full" or "$20 of your payment of $120".
 */
export function deskRefundWords(
  instructor: string,
  refund: { amountCents: number; paidCents: number },
  what: string,
): string {
  const { amountCents, paidCents } = refund;
  return amountCents >= paidCents
    ? `${instructor} has refunded your payment of ${dollarsOf(paidCents)} for ${what} in full. It reaches your card in 5 to 10 days.`
    : `${instructor} has refunded ${dollarsOf(amountCents)} of your payment of ${dollarsOf(paidCents)} for ${what}. It reaches your card in 5 to 10 days.`;
}

/** A paid payment with what was refunded of it (refunds not refused), and what is pending. */
export interface PaidPayment extends Payment {
  feeCents: number | null;
  paidAt: Date | null;
  refundedCents: number;
  refundPendingCents: number;
}

/** The paid payments of these bookings, by booking id. */
export async function paidPaymentsOf(
  tx: Queryable,
  kind: BookingKind,
  bookingIds: readonly string[],
): Promise<Map<string, PaidPayment>> {
  const found = new Map<string, PaidPayment>();
  if (bookingIds.length === 0) return found;
  const { rows } = await tx.query(
    `SELECT p.*,
            coalesce(sum(r.amount_cents) FILTER (WHERE r.state <> 'failed'), 0)::int AS refunded,
            coalesce(sum(r.amount_cents) FILTER (WHERE r.state = 'pending'), 0)::int AS pending
       FROM payments p LEFT JOIN payment_refunds r ON r.payment_id = p.id
      WHERE p.booking_kind = $1 AND p.booking_id = ANY($2::uuid[]) AND p.state = 'paid'
      GROUP BY p.id`,
    [kind, bookingIds],
  );
  for (const row of rows as (PaymentRow & {
    fee_cents: number | null;
    paid_at: Date | null;
    refunded: number;
    pending: number;
  })[]) {
    found.set(row.booking_id, {
      ...paymentOf(row),
      feeCents: row.fee_cents === null ? null : Number(row.fee_cents),
      paidAt: row.paid_at && new Date(row.paid_at),
      refundedCents: Number(row.refunded),
      refundPendingCents: Number(row.pending),
    });
  }
  return found;
}

/** A booking's paid payment locked for the rest of the transaction, with its refunds. */
export async function lockPaidPayment(
  tx: Queryable,
  kind: BookingKind,
  bookingId: string,
): Promise<PaidPayment | undefined> {
  await tx.query(
    `SELECT id FROM payments WHERE booking_kind = $1 AND booking_id = $2 AND state = 'paid'
        FOR UPDATE`,
    [kind, bookingId],
  );
  return (await paidPaymentsOf(tx, kind, [bookingId])).get(bookingId);
}

/**
 * What a mail may say of a booking's money: paid online (cents) and refunded or being refunded
 * of it; `undefined` when it was not paid online.
 */
export async function refundedOf(
  kind: BookingKind,
  bookingId: string,
): Promise<{ paidCents: number; refundedCents: number } | undefined> {
  const tx: Queryable = { query: async (sql, params) => ({ rows: await query(sql, params) }) };
  const paid = (await paidPaymentsOf(tx, kind, [bookingId])).get(bookingId);
  return paid && { paidCents: paid.amountCents, refundedCents: paid.refundedCents };
}

/** "Your payment of $45 is refunded in full" (or the part refunded), for a cancellation's mail. */
export function refundWords(money: { paidCents: number; refundedCents: number }): string {
  const { paidCents, refundedCents } = money;
  if (refundedCents <= 0) return '';
  return refundedCents >= paidCents
    ? `Your payment of ${dollarsOf(paidCents)} is refunded in full: it reaches your card in 5 to 10 days.`
    : `${dollarsOf(refundedCents)} of your payment of ${dollarsOf(paidCents)} is refunded: it reaches your card in 5 to 10 days.`;
}

/**
 * What is left of a booking's online payment, refunded because the studio cancelled it (on the
 * desk, or a class below its minimum at its cutoff): once, whoever asks, for the key is the
 * payment's. None when it was not paid online, or is refunded already.
 */
export async function refundRest(
  tx: Queryable,
  kind: BookingKind,
  bookingId: string,
  requestedBy: string,
  reason: 'studio' | 'class-cancelled',
): Promise<Refund | undefined> {
  const paid = await lockPaidPayment(tx, kind, bookingId);
  if (!paid || paid.refundedCents >= paid.amountCents) return undefined;
  return queueRefund(tx, paid, {
    amountCents: paid.amountCents - paid.refundedCents,
    reason,
    requestedBy,
    key: `${reason === 'studio' ? 'studio-cancel' : 'class-cancelled'}:${paid.id}`,
  });
}
