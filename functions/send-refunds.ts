import type { Config } from '@netlify/functions';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { readMissingFees } from '../src/server/payments/fees';
import { sendRefunds } from '../src/server/payments/refunds';
import { stripeAccount } from '../src/server/payments/stripe';
import { outbox } from '../src/server/mail-kinds';
import { json } from '../src/server/request/responses';

/**
 * Refunds Stripe has not yet confirmed (it was down, or did not answer) are asked again, each
 * with its own idempotency key, so Stripe makes each once (src/server/payments/refunds.ts). Then
 * Stripe's fee is read for recent payments still without one (it was not made yet, or Stripe was
 * down: src/server/payments/fees.ts). Every five minutes; nothing to do without the studio's
 * Stripe key.
 */
export const config: Config = { schedule: '*/5 * * * *' };

export default async (): Promise<Response> => {
  const account = stripeAccount();
  if (!account) return json({ success: true, skipped: 'no Stripe key' });
  try {
    const sent = await sendRefunds(account, outbox);
    if (sent.succeeded + sent.pending + sent.failed > 0) {
      console.info(
        `send-refunds: ${sent.succeeded} refunded, ${sent.pending} still pending, ${sent.failed} refused by Stripe`,
      );
    }
    const fees = await readMissingFees(account);
    return json({ success: true, ...sent, fees });
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    console.error(
      `send-refunds: ${outage ? 'the database is unavailable' : (error as Error)?.name}`,
    );
    return json({ success: false, error: 'The refunds could not be read.' }, outage ? 503 : 500);
  }
};
