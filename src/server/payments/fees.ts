/**
 * Stripe's fee for a payment, for the bookings CSV: on the balance transaction of the payment's
 * charge, read through its PaymentIntent with `expand: ['latest_charge.balance_transaction']`
 * (Stripe's documented way). It is read after the payment's transaction has committed and its
 * mails are sent, so a failure here never fails or delays a booking's confirmation: the fee is
 * only left empty.
 *
 * Stripe makes some balance transactions later than `checkout.session.completed`; then the fee
 * stays empty and the scheduled send-refunds step (every five minutes) reads it again, for paid
 * payments of the last 30 days still without one. That loop rather than Stripe's `charge.updated`
 * event, because it needs no other event in the studio's webhook settings and also catches a fee
 * missed while Stripe was down; rather than at the CSV's export, because the export must neither
 * wait for Stripe nor fail with it.
 */
import { sqlNow } from '../platform/clock';
import { query } from '../platform/db';
import type { StripeAccount } from './stripe';

/** A paid payment whose fee is to be read. */
export interface FeeOf {
  id: string;
  paymentIntent: string;
  currency: string;
}

/** How many payments still without a fee the scheduled step asks about, newest first. */
const FEES_PER_RUN = 20;

/**
 * Reads the fee of one payment from Stripe and records it: true when Stripe reported it, false
 * when the charge has no balance transaction yet (or its fee is in another currency). Throws
 * what the SDK throws.
 */
export async function readFee(account: StripeAccount, payment: FeeOf): Promise<boolean> {
  const intent = await account.stripe.paymentIntents.retrieve(payment.paymentIntent, {
    expand: ['latest_charge.balance_transaction'],
  });
  const charge = intent.latest_charge;
  const txn = charge && typeof charge === 'object' ? charge.balance_transaction : null;
  if (!txn || typeof txn !== 'object') return false;
  // The CSV says the fee in the payment's currency; an account that settles in another one has
  // its fee in that one, which the column cannot say: left empty.
  if (txn.currency !== payment.currency) return false;
  await query(`UPDATE payments SET fee_cents = $2 WHERE id = $1 AND fee_cents IS NULL`, [
    payment.id,
    txn.fee,
  ]);
  return true;
}

/** `readFee` for a payment just confirmed: never throws; a fee not read is read again later. */
export async function readFeeQuietly(account: StripeAccount, payment: FeeOf): Promise<void> {
  try {
    await readFee(account, payment);
  } catch (error) {
    console.error(
      `stripe fee: the fee of ${payment.paymentIntent} could not be read (${(error as Error)?.message}); asked again later`,
    );
  }
}

/**
 * The scheduled step: the fee of each paid payment of the last 30 days that has none yet (at most
 * FEES_PER_RUN, newest first). Never throws for Stripe's faults: how many were read, how many are
 * still without one.
 */
export async function readMissingFees(
  account: StripeAccount,
): Promise<{ read: number; missing: number }> {
  const rows = await query<{ id: string; payment_intent: string; currency: string }>(
    `SELECT id, payment_intent, currency FROM payments
      WHERE state = 'paid' AND fee_cents IS NULL
        AND paid_at > ${sqlNow()} - interval '30 days'
      ORDER BY paid_at DESC LIMIT ${FEES_PER_RUN}`,
  );
  let read = 0;
  let failure: string | undefined;
  for (const row of rows) {
    try {
      const payment = { id: row.id, paymentIntent: row.payment_intent, currency: row.currency };
      if (await readFee(account, payment)) read += 1;
    } catch (error) {
      failure ??= (error as Error)?.message;
    }
  }
  if (failure) console.error(`stripe fee: some fees could not be read (${failure})`);
  return { read, missing: rows.length - read };
}
