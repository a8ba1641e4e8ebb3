/**
 * Sending refunds to Stripe. A refund is decided in a transaction (a row, 'pending', with its
 * idempotency key) and sent after it; Stripe's answer settles the row:
 *
 * - made (or made and being processed): 'succeeded', or 'pending' until Stripe says;
 * - refused (Stripe will not make it: a disputed charge, a card that cannot take it back, what
 *   is left already refunded): 'failed', with Stripe's words for the desk, and counted as
 *   nothing, so what it was for can still be refunded; never sent again;
 * - not answered (an outage, a timeout, the key still in use, our own key refused): still
 *   pending, sent again with the same key, so Stripe makes it once however often it is asked.
 */
import Stripe from 'stripe';
import { transaction } from '../platform/db';
import { isStripeOutage, type StripeAccount } from './stripe';
import type { FormOutbox } from '../request/steps';
import { pendingRefunds, refundRef, settleRefund, type Refund } from './store';

export interface RefundsSent {
  succeeded: number;
  pending: number;
  failed: number;
}

/** Where the studio is told of a refund Stripe would not make. */
export type RefundOutbox = FormOutbox<'refund-refused'>;

/**
 * Sends `refunds` (or every pending one) to Stripe. Never throws for Stripe's faults. A refund
 * Stripe refuses is told to the studio by mail, queued as it is settled.
 */
export async function sendRefunds(
  account: StripeAccount,
  outbox: RefundOutbox,
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
      const words = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      if (isRefusal(error)) {
        const told = await transaction(async (tx) => {
          await settleRefund(tx, refund.id, { refused: words });
          return outbox.enqueue(tx, 'refund-refused', await refundRef(tx, refund));
        });
        if (told) await outbox.deliverNow([told]);
        console.error(`Refund ${refund.id} was refused by Stripe: ${words}`);
        sent.failed += 1;
        continue;
      }
      await transaction((tx) => settleRefund(tx, refund.id, { error: words }));
      if (!isStripeOutage(error)) {
        console.error(`Refund ${refund.id} could not be sent to Stripe: ${words}`);
      }
      sent.pending += 1;
    }
  }
  return sent;
}

/**
 * Stripe's answer that it will not make this refund: an invalid request or a card error about
 * the refund itself. Not a refusal: Stripe's own faults, its rate limit, a key still in use (409),
 * and the site's key refused (401, 403: a setting to fix, after which the refund goes through).
 */
function isRefusal(error: unknown): boolean {
  if (!(error instanceof Stripe.errors.StripeError) || isStripeOutage(error)) return false;
  if (error instanceof Stripe.errors.StripeIdempotencyError) return false;
  const status = error.statusCode ?? 0;
  return status >= 400 && status < 500 && ![401, 403, 409, 429].includes(status);
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
  outbox: RefundOutbox,
): Promise<void> {
  if (refunds.length > 0 && account) await sendRefunds(account, outbox, refunds);
  if (mails.length > 0) await outbox.deliverNow([...mails]);
}
