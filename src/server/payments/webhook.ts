/**
 * What the site does with an event Stripe sends about a Checkout Session it opened, in order:
 * read the session again from Stripe (the event's body is never trusted beyond its id and type),
 * then, in one transaction, claim the event's id (a redelivery changes nothing), and apply what
 * Stripe's own copy says, whichever event brought it:
 *
 * - paid (Stripe's copy says `payment_status: paid`, for the amount and currency asked for): the
 *   payment is recorded and the booking confirmed — its held place, or, when the hold had lapsed,
 *   the place again if it is still free. A place that went to someone else meanwhile is refunded
 *   in full, at once, and the visitor told: no money without a place.
 * - paid, but not what was asked (another amount or currency: a session tampered with, a price
 *   changed under it): what Stripe took is recorded and refunded whole, nothing is booked (the
 *   hold is given back), and both the visitor and the studio are told.
 * - lapsed (`checkout.session.expired` with Stripe's copy expired, or
 *   `…async_payment_failed` with its copy complete and unpaid): the hold is released: no place
 *   without money. An event that says lapsed about a session Stripe says is still open changes
 *   nothing.
 *
 * Refunds are written in the transaction and sent to Stripe after it (`sendRefunds`), each with
 * its own idempotency key; one Stripe does not confirm stays pending and is asked again. Stripe's
 * fee of a payment just recorded is read after that too (`fees.ts`), never holding up the rest.
 */
import type Stripe from 'stripe';
import type { Queryable } from '../platform/db';
import { transaction } from '../platform/db';
import type { FeeOf } from './fees';
import type { StripeAccount } from './stripe';
import type { PayableKind } from '../../shared/desk-api';
import {
  claimEvent,
  eventOutcome,
  lockPaymentOfCheckout,
  markExpired,
  markPaid,
  queueRefund,
  type Payment,
  type Refund,
} from './store';

/** What a kind of booking (a session, a class place) does when its payment settles. */
export interface Payable {
  /**
   * Its payment succeeded: the booking is confirmed and its confirmation queued. 'taken' when
   * its place is no longer to be had (the hold lapsed and the time or place went to someone else,
   * or the studio cancelled it): the caller refunds. 'already' when it was confirmed before.
   */
  confirm(
    tx: Queryable,
    bookingId: string,
  ): Promise<{ outcome: 'confirmed' | 'already' | 'taken'; mails: string[] }>;
  /**
   * Its checkout lapsed unpaid: the held place is released (nothing when it is not held); the
   * mails that queued (a class's freed place offered to its waitlist).
   */
  release(tx: Queryable, bookingId: string): Promise<string[]>;
  /**
   * Queues the mail telling the visitor a payment was refunded by the site: it came too late for
   * its place, or it was not the price asked for.
   */
  tellRefunded(tx: Queryable, refund: Refund, bookingId: string): Promise<string[]>;
  /** Queues the studio's mail of a payment that was not the price asked for, refunded. */
  tellStudioMismatch(tx: Queryable, refund: Refund, bookingId: string): Promise<string[]>;
}

export type Payables = Partial<Record<PayableKind, Payable>>;

const HANDLED = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.expired',
  'checkout.session.async_payment_failed',
]);
const LAPSED = new Set(['checkout.session.expired', 'checkout.session.async_payment_failed']);

export function isHandled(type: string): boolean {
  return HANDLED.has(type);
}

/** Stripe's own current copy of the session the event is about. */
export async function rereadSession(
  account: StripeAccount,
  event: Stripe.Event,
): Promise<Stripe.Checkout.Session> {
  const object = event.data.object as { id?: unknown; object?: unknown };
  if (object.object !== 'checkout.session' || typeof object.id !== 'string') {
    throw new Error(`event ${event.id} (${event.type}) is not about a Checkout Session`);
  }
  return account.stripe.checkout.sessions.retrieve(object.id);
}

export interface Applied {
  outcome: string;
  /** Refunds written, to be sent to Stripe after the commit. */
  refunds: Refund[];
  /** Mails queued, to be sent after the commit. */
  mails: string[];
  /** The payment this event recorded as paid: its fee is read from Stripe after the commit. */
  paid?: FeeOf;
}

/** Applies one event in one transaction (see the file's comment). */
export async function applyEvent(
  kinds: Payables,
  event: Pick<Stripe.Event, 'id' | 'type'>,
  session: Stripe.Checkout.Session,
): Promise<Applied> {
  return transaction(async (tx) => {
    if (!(await claimEvent(tx, event)))
      return { outcome: 'already handled', refunds: [], mails: [] };
    const payment = await lockPaymentOfCheckout(tx, session.id);
    const applied = payment
      ? await applyTo(tx, kinds, event, session, payment)
      : { outcome: 'ignored: not a checkout this site opened', refunds: [], mails: [] };
    await eventOutcome(tx, event.id, applied.outcome);
    return applied;
  });
}

async function applyTo(
  tx: Queryable,
  kinds: Payables,
  event: Pick<Stripe.Event, 'type'>,
  session: Stripe.Checkout.Session,
  payment: Payment,
): Promise<Applied> {
  const kind = kinds[payment.bookingKind];
  if (!kind) throw new Error(`no ${payment.bookingKind} is paid online on this site`);
  if (session.payment_status === 'paid') {
    if (payment.state === 'paid') return { outcome: 'already paid', refunds: [], mails: [] };
    const received = { cents: session.amount_total ?? 0, currency: session.currency ?? '' };
    if (received.cents !== payment.amountCents || received.currency !== payment.currency) {
      return paidOtherThanAsked(tx, kind, session, payment, received);
    }
    return paid(tx, kind, session, payment);
  }
  if (LAPSED.has(event.type)) {
    const lapsed =
      session.status === 'expired' ||
      (event.type === 'checkout.session.async_payment_failed' && session.status === 'complete');
    if (!lapsed) return nothing(`ignored: Stripe says the checkout is ${session.status}`);
    if (payment.state !== 'open') return nothing(`ignored: already ${payment.state}`);
    await markExpired(tx, payment.id);
    const mails = await kind.release(tx, payment.bookingId);
    return { outcome: 'released', refunds: [], mails };
  }
  return nothing(`ignored: Stripe says ${session.payment_status}`);
}

const nothing = (outcome: string): Applied => ({ outcome, refunds: [], mails: [] });

/** Paid what was asked: the booking confirmed, or refunded in full when its place went. */
async function paid(
  tx: Queryable,
  kind: Payable,
  session: Stripe.Checkout.Session,
  payment: Payment,
): Promise<Applied> {
  const intent = paymentIntentOf(session);
  await markPaid(tx, payment.id, intent);
  const paidPayment = { ...payment, state: 'paid' as const, paymentIntent: intent };
  const fee: FeeOf = { id: payment.id, paymentIntent: intent, currency: payment.currency };
  const confirmed = await kind.confirm(tx, payment.bookingId);
  if (confirmed.outcome !== 'taken') {
    return { outcome: 'paid', refunds: [], mails: confirmed.mails, paid: fee };
  }
  const refund = await queueRefund(tx, paidPayment, {
    amountCents: payment.amountCents,
    reason: 'taken',
    requestedBy: 'site',
    key: `taken:${payment.id}`,
  });
  const mails = await kind.tellRefunded(tx, refund, payment.bookingId);
  return { outcome: 'paid after its place went: refunded', refunds: [refund], mails, paid: fee };
}

/**
 * Paid, but not the amount or currency asked for: nothing booked for it. What Stripe took is
 * recorded and refunded whole, the held place given back, the visitor and the studio told.
 */
async function paidOtherThanAsked(
  tx: Queryable,
  kind: Payable,
  session: Stripe.Checkout.Session,
  payment: Payment,
  received: { cents: number; currency: string },
): Promise<Applied> {
  const intent = paymentIntentOf(session);
  await markPaid(tx, payment.id, intent, received);
  const mails = await kind.release(tx, payment.bookingId);
  const refunds: Refund[] = [];
  if (received.cents > 0) {
    const refund = await queueRefund(
      tx,
      { ...payment, state: 'paid', paymentIntent: intent },
      {
        amountCents: received.cents,
        reason: 'mismatch',
        requestedBy: 'site',
        key: `mismatch:${payment.id}`,
      },
    );
    refunds.push(refund);
    mails.push(...(await kind.tellRefunded(tx, refund, payment.bookingId)));
    mails.push(...(await kind.tellStudioMismatch(tx, refund, payment.bookingId)));
  }
  console.error(
    `stripe-webhook: checkout ${session.id} was paid ${received.cents} ${received.currency}, not the ${payment.amountCents} ${payment.currency} asked: refunded, nothing booked`,
  );
  return { outcome: 'paid other than asked: refunded, nothing booked', refunds, mails };
}

function paymentIntentOf(session: Stripe.Checkout.Session): string {
  const intent = session.payment_intent;
  const id = typeof intent === 'string' ? intent : intent?.id;
  if (!id) throw new Error(`checkout ${session.id} is paid but names no payment`);
  return id;
}
