/**
 * The payments tables (migration 0090): a row per Stripe Checkout Session opened for a booking,
 * its refunds, and every Stripe event handled, by id. Each function runs in the caller's
 * transaction.
 */
import { randomUUID } from 'node:crypto';
import { mailBody } from '../mail/blocks';
import { contactRecipient, type Mail } from '../platform/mail';
import { nothingToSend, type NothingToSend } from '../platform/outbox';
import { siteFacts } from '../platform/site-facts';
import { sqlNow } from '../platform/clock';
import { amountIn, dollars as dollarsOf } from '../../shared/money';
import { query, type Queryable } from '../platform/db';
import type { PayableKind } from '../../shared/desk-api';

export type RefundReason = 'policy' | 'taken' | 'class-cancelled' | 'studio' | 'mismatch';

export interface Payment {
  id: string;
  bookingKind: PayableKind;
  bookingId: string;
  checkoutSession: string;
  /** Stripe's page of the checkout, where the visitor pays while it is open. */
  checkoutUrl: string | null;
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
  booking_kind: PayableKind;
  booking_id: string;
  checkout_session: string;
  checkout_url: string | null;
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
  checkoutUrl: row.checkout_url,
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
    `INSERT INTO payments (id, booking_kind, booking_id, checkout_session, checkout_url,
                           amount_cents, currency, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${sqlNow()})
     ON CONFLICT (checkout_session) DO UPDATE SET checkout_session = EXCLUDED.checkout_session
     RETURNING *`,
    [
      randomUUID(),
      checkout.bookingKind,
      checkout.bookingId,
      checkout.checkoutSession,
      checkout.checkoutUrl,
      checkout.amountCents,
      checkout.currency,
      checkout.expiresAt.toISOString(),
    ],
  );
  return paymentOf(rows[0] as PaymentRow);
}

/**
 * The page of the checkout open for a booking, if one is open and its page not yet closed: what a
 * repeated request for the booking is answered with.
 */
export async function openCheckoutOf(
  kind: PayableKind,
  bookingId: string,
): Promise<string | undefined> {
  const [row] = await query<{ checkout_url: string }>(
    `SELECT checkout_url FROM payments
      WHERE booking_kind = $1 AND booking_id = $2 AND state = 'open'
        AND checkout_url IS NOT NULL AND expires_at > ${sqlNow()}`,
    [kind, bookingId],
  );
  return row?.checkout_url;
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
  kind: PayableKind,
  bookingId: string,
): Promise<Payment | undefined> {
  const { rows } = await tx.query(
    `SELECT * FROM payments WHERE booking_kind = $1 AND booking_id = $2 AND state = 'paid'`,
    [kind, bookingId],
  );
  return rows[0] ? paymentOf(rows[0] as PaymentRow) : undefined;
}

/**
 * Records a payment paid, with what Stripe took when it was not what was asked (`received`: a
 * payment refunded whole, its booking not confirmed).
 */
export async function markPaid(
  tx: Queryable,
  id: string,
  paymentIntent: string,
  received?: { cents: number; currency: string },
): Promise<void> {
  await tx.query(
    `UPDATE payments SET state = 'paid', payment_intent = $2, paid_at = ${sqlNow()},
                         received_cents = $3, received_currency = $4
      WHERE id = $1 AND state <> 'paid'`,
    [id, paymentIntent, received?.cents ?? null, received?.currency ?? null],
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

/**
 * Settles a refund by Stripe's answer: made (`stripeRefund`, in `state`), refused by Stripe
 * (`refused`, its words: failed, counted as nothing), or not answered (`error`: still pending).
 * The payment is locked first, as everything that writes its refunds locks it, so that a refund
 * settled while another is decided for the same payment never waits on it the other way round.
 */
export async function settleRefund(
  tx: Queryable,
  id: string,
  outcome:
    | { stripeRefund: string; state: 'succeeded' | 'pending' | 'failed' }
    | { refused: string }
    | { error: string },
): Promise<void> {
  await tx.query(
    `SELECT 1 FROM payments WHERE id = (SELECT payment_id FROM payment_refunds WHERE id = $1)
        FOR UPDATE`,
    [id],
  );
  if ('refused' in outcome) {
    await tx.query(
      `UPDATE payment_refunds
          SET state = 'failed', attempts = attempts + 1, error = $2, settled_at = ${sqlNow()}
        WHERE id = $1 AND state = 'pending'`,
      [id, outcome.refused],
    );
    return;
  }
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

/** The ref of a mail about a refund: `<booking id>:refund-<refund id>`, as erasure finds it. */
export async function refundRef(tx: Queryable, refund: Pick<Refund, 'id' | 'paymentId'>) {
  const { rows } = await tx.query('SELECT booking_id FROM payments WHERE id = $1', [
    refund.paymentId,
  ]);
  return `${(rows[0] as { booking_id: string }).booking_id}:refund-${refund.id}`;
}

/** Where one refund stands now, with Stripe's words when Stripe refused it. */
export async function refundState(
  id: string,
): Promise<{ state: Refund['state']; words: string | undefined }> {
  const [row] = await query<{ state: Refund['state']; error: string | null }>(
    'SELECT state, error FROM payment_refunds WHERE id = $1',
    [id],
  );
  if (!row) throw new Error(`No refund ${id}`);
  return { state: row.state, words: row.state === 'failed' ? (row.error ?? undefined) : undefined };
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
 * The refund a `payment-refunded` mail tells of, from its ref `<booking id>:refund-<refund id>`:
 * its booking, amount and reason, and the payment it gives back (of it), when it is a refund of a
 * `kind` booking.
 */
export async function refundToTell(
  ref: string,
  kind: PayableKind,
): Promise<
  | {
      bookingId: string;
      amountCents: number;
      paidCents: number;
      reason: RefundReason;
      state: Refund['state'];
      /** Stripe's words, when it refused the refund. */
      words: string | null;
      /** What was asked, and what Stripe took in its currency (they differ for a mismatch). */
      askedCents: number;
      currency: string;
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
    error: string | null;
    asked_cents: number;
    currency: string;
  }>(
    `SELECT p.booking_id, r.amount_cents, coalesce(p.received_cents, p.amount_cents) AS paid_cents,
            r.reason, r.state, r.error, p.amount_cents AS asked_cents,
            coalesce(p.received_currency, p.currency) AS currency
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
      words: row.state === 'failed' ? row.error : null,
      askedCents: Number(row.asked_cents),
      currency: row.currency.trim(),
    }
  );
}

/**
 * What the visitor's mail says of a payment that was not the price asked for: nothing booked,
 * refunded whole. `what` is the booking, e.g. "the private session on Tuesday, March 2, …".
 */
export function mismatchWords(
  refund: { amountCents: number; askedCents: number; currency: string },
  what: string,
): string {
  return `Your payment for ${what} was ${amountIn(refund.amountCents, refund.currency)}, not the ${dollarsOf(refund.askedCents)} asked, so nothing was booked and your payment has been refunded in full. It reaches your card in 5 to 10 days.`;
}

/** What the studio's mail says of a payment that was not the price asked for. */
function mismatchStudioLines(
  refund: { amountCents: number; askedCents: number; currency: string },
  person: { name: string; email: string },
  what: string,
): string[] {
  return [
    `Stripe took ${amountIn(refund.amountCents, refund.currency)} from ${person.name} for ${what}, not the ${dollarsOf(refund.askedCents)} asked for it. Nothing was booked: what was held for them is free again, and the whole payment is being refunded to them. They have been told.`,
    `If this happens again, please check the prices and the site's settings; ${person.name}'s e-mail address is ${person.email}.`,
  ];
}

/** Why a refund was made, as the studio's mail about its refusal says it. */
const REFUND_BECAUSE: Record<RefundReason, string> = {
  policy: 'They cancelled within your cancellation policy.',
  taken:
    'Their payment came after the time held for them had run out and the place had gone to someone else.',
  'class-cancelled': 'The class was cancelled.',
  studio: 'You refunded it on the desk.',
  mismatch:
    'Stripe took a different amount or currency from the price asked for, so nothing was booked.',
};

/**
 * What the studio's mail says of a refund Stripe would not make: how much, of whose payment for
 * what, why it was being refunded, Stripe's words, and what she can do.
 */
function refusedRefundLines(
  refund: { amountCents: number; paidCents: number; reason: RefundReason; words: string | null },
  person: { name: string; email: string },
  what: string,
): string[] {
  return [
    `Stripe would not refund ${dollarsOf(refund.amountCents)} of ${person.name}'s payment of ${dollarsOf(refund.paidCents)} for ${what}, so nothing of it was refunded.`,
    ...(refund.words ? [`Stripe said: “${refund.words}”`] : []),
    `Why it was being refunded: ${REFUND_BECAUSE[refund.reason]}`,
    `You can refund it again on the desk's Bookings screen, or give the money back another way. ${person.name}'s e-mail address is ${person.email}.`,
  ];
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

/** A refund Stripe would not make: how much, and Stripe's words. */
export interface RefusedRefund {
  amountCents: number;
  words: string;
}

/**
 * A paid payment with what was refunded of it (refunds not refused), what is pending, and the
 * refunds Stripe refused (counted as nothing).
 */
export interface PaidPayment extends Payment {
  feeCents: number | null;
  paidAt: Date | null;
  refundedCents: number;
  refundPendingCents: number;
  refused: RefusedRefund[];
}

/** The paid payments of these bookings, by booking id; each with its refunds in one line. */
export async function paidPaymentsOf(
  tx: Queryable,
  kind: PayableKind,
  bookingIds: readonly string[],
): Promise<Map<string, PaidPayment & { refundsLine: string | null }>> {
  const found = new Map<string, PaidPayment & { refundsLine: string | null }>();
  if (bookingIds.length === 0) return found;
  const { rows } = await tx.query(
    `SELECT p.*,
            coalesce(sum(r.amount_cents) FILTER (WHERE r.state <> 'failed'), 0)::int AS refunded,
            coalesce(sum(r.amount_cents) FILTER (WHERE r.state = 'pending'), 0)::int AS pending,
            coalesce(json_agg(json_build_object('amountCents', r.amount_cents,
                                                'words', coalesce(r.error, ''))
                              ORDER BY r.created_at) FILTER (WHERE r.state = 'failed'),
                     '[]'::json) AS refused,
            string_agg(to_char(r.amount_cents / 100.0, 'FM999990.00') || ' ' || r.state
                       || coalesce(' ' || r.stripe_refund, ''), '; ' ORDER BY r.created_at)
              AS refunds_line
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
    refused: RefusedRefund[] | string;
    refunds_line: string | null;
  })[]) {
    // json arrives parsed from `pg`, and as text from some drivers.
    const refused: RefusedRefund[] =
      typeof row.refused === 'string' ? (JSON.parse(row.refused) as RefusedRefund[]) : row.refused;
    found.set(row.booking_id, {
      ...paymentOf(row),
      feeCents: row.fee_cents === null ? null : Number(row.fee_cents),
      paidAt: row.paid_at && new Date(row.paid_at),
      refundedCents: Number(row.refunded),
      refundPendingCents: Number(row.pending),
      refused: refused.map((r) => ({
        ...r,
        amountCents: Number(r.amountCents),
      })),
      refundsLine: row.refunds_line,
    });
  }
  return found;
}

/** The amount of the refund asked for under `key` (a press on the desk), if it was asked. */
export async function refundAskedUnder(tx: Queryable, key: string): Promise<number | undefined> {
  const { rows } = await tx.query(
    'SELECT amount_cents FROM payment_refunds WHERE idempotency_key = $1',
    [`refund:${key}`],
  );
  const row = rows[0] as { amount_cents: number } | undefined;
  return row && Number(row.amount_cents);
}

/** A booking's paid payment locked for the rest of the transaction, with its refunds. */
export async function lockPaidPayment(
  tx: Queryable,
  kind: PayableKind,
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
  kind: PayableKind,
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
 * What a visitor's cancellation within the policy says of their money: the part of an online
 * payment refunded (`money`), what they paid at the studio (`paidAtStudioCents`), or nothing due.
 */
export function cancelledMoney(
  money: { paidCents: number; refundedCents: number } | undefined,
  paidAtStudioCents: number,
): string {
  if (money) {
    return (
      refundWords(money) ||
      `Your payment of ${dollarsOf(money.paidCents)} is to be refunded: the studio will write to you about it.`
    );
  }
  if (paidAtStudioCents > 0) {
    return `You paid ${dollarsOf(paidAtStudioCents)} at the studio: it is given back to you there.`;
  }
  return 'Nothing is due for it.';
}

/**
 * What is left of a booking's online payment after any refund she made on the desk, refunded
 * because the booking ended: cancelled within the policy (`policy`), cancelled by the studio (on
 * the desk, `studio`), or its class cancelled (on the desk, or below its minimum at its cutoff).
 * Once, whoever asks, for the key is the payment's. None when it was not paid online, or nothing
 * is left of it.
 */
export async function refundRest(
  tx: Queryable,
  kind: PayableKind,
  bookingId: string,
  requestedBy: string,
  reason: 'policy' | 'studio' | 'class-cancelled',
): Promise<Refund | undefined> {
  const paid = await lockPaidPayment(tx, kind, bookingId);
  if (!paid || paid.refundedCents >= paid.amountCents) return undefined;
  return queueRefund(tx, paid, {
    amountCents: paid.amountCents - paid.refundedCents,
    reason,
    requestedBy,
    key: `${REST_KEYS[reason]}:${paid.id}`,
  });
}

const REST_KEYS = {
  policy: 'policy',
  studio: 'studio-cancel',
  'class-cancelled': 'class-cancelled',
} as const;

/** What the studio is told of a refund: one Stripe would not make, or a payment not the price. */
export type StudioRefundAbout = 'refused' | 'mismatch';

/**
 * The studio's mail about a refund of `person`'s payment for `what`: its subject and lines, or
 * none when a refusal it would tell of is no longer so.
 */
export function studioRefundWords(
  about: StudioRefundAbout,
  refund: Parameters<typeof refusedRefundLines>[0] &
    Parameters<typeof mismatchStudioLines>[0] & {
      state: Refund['state'];
    },
  person: { name: string; email: string },
  what: string,
): { subject: string; lines: string[] } | undefined {
  if (about === 'mismatch') {
    return {
      subject: `Payment refunded, nothing booked: ${person.name}`,
      lines: mismatchStudioLines(refund, person, what),
    };
  }
  if (refund.state !== 'failed') return undefined;
  return {
    subject: `Refund not made: ${dollarsOf(refund.amountCents)} to ${person.name}`,
    lines: refusedRefundLines(refund, person, what),
  };
}

/**
 * The composer of the studio's mail about a refund of one kind's payment (`<booking id>:refund-
 * <refund id>`): one Stripe would not make, or a payment that was not the price asked for
 * (`studioRefundWords`), from the site to her inbox, her reply going to the person. `describe`
 * finds who paid and for what; nothing is owed when the refusal it would tell of is no longer so.
 */
export const studioRefundComposer =
  (
    kind: PayableKind,
    describe: (
      bookingId: string,
    ) => Promise<{ person: { name: string; email: string }; what: string } | undefined>,
  ) =>
  async (ref: string, about: StudioRefundAbout): Promise<Mail | NothingToSend | undefined> => {
    const refund = await refundToTell(ref, kind);
    const paid = refund && (await describe(refund.bookingId));
    if (!refund || !paid) return undefined;
    const told = studioRefundWords(about, refund, paid.person, paid.what);
    if (!told) return nothingToSend('Stripe made the refund after all');
    return {
      to: contactRecipient(),
      subject: told.subject,
      ...mailBody([...told.lines, `${siteFacts().name}'s website`], []),
      replyTo: paid.person.email,
    };
  };
