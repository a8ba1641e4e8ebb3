/**
 * What the site does with an event Stripe sends about a Checkout Session it opened, in order:
 * read the session again from Stripe (the event's body is never trusted beyond its id and type),
 * then, in one transaction, claim the event's id (a redelivery changes nothing), and apply it:
 *
 * - paid (`checkout.session.completed` or `…async_payment_succeeded`, and Stripe's copy says
 *   `payment_status: paid`): the payment is recorded and the booking confirmed — its held place,
 *   or, when the hold had lapsed, the place again if it is still free. A place that went to
 *   someone else meanwhile is refunded in full, at once, and the visitor told: no money without a
 *   place.
 * - lapsed (`checkout.session.expired`): the hold is released: no place without money.
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
import {
  claimEvent,
  eventOutcome,
  lockPaymentOfCheckout,
  markExpired,
  markPaid,
  queueRefund,
  type BookingKind,
  type Payment,
  type Refund,
} from './store';

/** What a kind of booking (a session, a class place) does when its payment settles. */
export interface PayableKind {
  /**
   * Its payment succeeded: the booking is confirmed and its confirmation queued. 'taken' when
   * its place is no longer to be had (the hold lapsed and the time or seat went to someone else,
   * or the studio cancelled it): the caller refunds. 'already' when it was confirmed before.
   */
  confirm(
    tx: Queryable,
    bookingId: string,
  ): Promise<{ outcome: 'confirmed' | 'already' | 'taken'; mails: string[] }>;
  /**
   * Its checkout lapsed unpaid: the held place is released (nothing when it is not held); the
   * mails that queued (a class's freed seat offered to its waitlist).
   */
  release(tx: Queryable, bookingId: string): Promise<string[]>;
  /** Queues the mail telling the visitor a payment came too late for its place, refunded. */
  tellRefunded(tx: Queryable, refund: Refund, bookingId: string): Promise<string[]>;
}

export type PayableKinds = Partial<Record<BookingKind, PayableKind>>;

const PAID = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const LAPSED = new Set(['checkout.session.expired', 'checkout.session.async_payment_failed']);

export function isHandled(type: string): boolean {
  return PAID.has(type) || LAPSED.has(type);
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
  kinds: PayableKinds,
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
  kinds: PayableKinds,
  event: Pick<Stripe.Event, 'type'>,
  session: Stripe.Checkout.Session,
  payment: Payment,
): Promise<Applied> {
  const kind = kinds[payment.bookingKind];
  if (!kind) throw new Error(`no ${payment.bookingKind} is paid online on this site`);
  if (PAID.has(event.type)) {
    if (session.payment_status !== 'paid') {
      return { outcome: `ignored: Stripe says ${session.payment_status}`, refunds: [], mails: [] };
    }
    if (payment.state === 'paid') return { outcome: 'already paid', refunds: [], mails: [] };
    if (session.amount_total !== payment.amountCents) {
      // Never happens unless the session was not the one opened: told, and not confirmed.
      throw new Error(
        `checkout ${session.id} was paid ${session.amount_total} cents, not ${payment.amountCents}`,
      );
    }
    const intent = paymentIntentOf(session);
    await markPaid(tx, payment.id, intent);
    const paid = { ...payment, state: 'paid' as const, paymentIntent: intent };
    const fee: FeeOf = { id: payment.id, paymentIntent: intent, currency: payment.currency };
    const confirmed = await kind.confirm(tx, payment.bookingId);
    if (confirmed.outcome !== 'taken') {
      return { outcome: 'paid', refunds: [], mails: confirmed.mails, paid: fee };
    }
    const refund = await queueRefund(tx, paid, {
      amountCents: payment.amountCents,
      reason: 'taken',
      requestedBy: 'site',
      key: `taken:${payment.id}`,
    });
    const mails = await kind.tellRefunded(tx, refund, payment.bookingId);
    return { outcome: 'paid after its place went: refunded', refunds: [refund], mails, paid: fee };
  }
  if (LAPSED.has(event.type)) {
    if (payment.state !== 'open')
      return { outcome: `ignored: already ${payment.state}`, refunds: [], mails: [] };
    await markExpired(tx, payment.id);
    const mails = await kind.release(tx, payment.bookingId);
    return { outcome: 'released', refunds: [], mails };
  }
  return { outcome: `ignored: ${event.type}`, refunds: [], mails: [] };
}

function paymentIntentOf(session: Stripe.Checkout.Session): string {
  const intent = session.payment_intent;
  const id = typeof intent === 'string' ? intent : intent?.id;
  if (!id) throw new Error(`checkout ${session.id} is paid but names no payment`);
  return id;
}
