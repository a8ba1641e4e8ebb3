/**
 * Sending refunds to Stripe. A refund is decided in a transaction (a row, 'pending', with its
 * idempotency key) and sent after it; Stripe's answer settles the row. A refund Stripe did not
 * answer (an outage, a timeout) stays pending and is sent again with the same key, so Stripe
 * makes it once however often it is asked.
 */
import { transaction } from '../platform/db';
import { isStripeOutage, type StripeAccount } from './stripe';
import { pendingRefunds, settleRefund, type Refund } from './store';

export interface RefundsSent {
  succeeded: number;
  pending: number;
  failed: number;
}

/** Sends `refunds` (or every pending one) to Stripe. Never throws for Stripe's faults. */
export async function sendRefunds(
  account: StripeAccount,
  refunds?: readonly Refund[],
): Promise<RefundsSent> {
  const due = await transaction((tx) =>
    pendingRefunds(
      tx,
      refunds?.map((r) => r.id),
    ),
  );
  const sent: RefundsSent = { succeeded: 0, pending: 0, failed: 0 };
  for (const refund of due) {
    try {
      const made = await account.stripe.refunds.create(
        {
          payment_intent: refund.paymentIntent,
          amount: refund.amountCents,
          metadata: { refund: refund.id, reason: refund.reason },
        },
        { idempotencyKey: refund.idempotencyKey },
      );
      const state =
        made.status === 'succeeded'
          ? 'succeeded'
          : made.status === 'failed' || made.status === 'canceled'
            ? 'failed'
            : 'pending';
      await transaction((tx) => settleRefund(tx, refund.id, { stripeRefund: made.id, state }));
      sent[state] += 1;
    } catch (error) {
      const words = error instanceof Error ? error.message : String(error);
      await transaction((tx) => settleRefund(tx, refund.id, { error: words.slice(0, 500) }));
      if (!isStripeOutage(error))
        console.error(`Refund ${refund.id} was refused by Stripe: ${words}`);
      sent.pending += 1;
    }
  }
  return sent;
}

/**
 * After a commit that decided refunds and queued mails: the refunds sent to Stripe first, so a
 * mail that says "refunded" follows Stripe's yes, then the mails. Whatever fails stays owed: the
 * refund pending (send-refunds asks again), the mail in the outbox.
 */
export async function refundThenMail(
  account: StripeAccount | undefined,
  refunds: readonly Refund[],
  mails: readonly string[],
  deliverNow: (ids: string[]) => Promise<unknown>,
): Promise<void> {
  if (refunds.length > 0 && account) await sendRefunds(account, refunds);
  if (mails.length > 0) await deliverNow([...mails]);
}
