import type { Config } from '@netlify/functions';
import { runClassSteps } from '../src/server/classes/engine';
import { outbox } from '../src/server/mail-kinds';
import { sendRefunds } from '../src/server/payments/refunds';
import { stripeAccount } from '../src/server/payments/stripe';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { json } from '../src/server/request/responses';

/**
 * The classes' timed steps on the studio's clock (src/server/classes/engine.ts runClassSteps):
 * waitlist offers that ran out pass to the next person; at each class's cutoff, no more offers,
 * and a class below its minimum is cancelled with everyone told and each place paid online
 * refunded. Every five minutes.
 */
export const config: Config = { schedule: '*/5 * * * *' };

export default async (): Promise<Response> => {
  try {
    const summary = await runClassSteps(outbox);
    // The refunds first, so a mail saying "refunded" follows Stripe's yes; one Stripe does not
    // answer stays pending, and send-refunds asks again.
    const account = stripeAccount();
    if (summary.refunds.length > 0 && account) await sendRefunds(account, outbox, summary.refunds);
    if (summary.mails.length > 0) await outbox.deliverNow(summary.mails);
    const { mails, refunds, ...counts } = summary;
    if (counts.released + counts.lapsed + counts.offered + counts.cutOff > 0) {
      console.info(
        `classes-steps: ${counts.released} held places given back, ${counts.lapsed} offers ran out, ${counts.offered} offered, ${counts.cutOff} cut off (${counts.cancelled} cancelled below their minimum, ${refunds.length} places refunded), ${mails.length} mails`,
      );
    }
    return json({ success: true, ...counts, mails: mails.length, refunds: refunds.length });
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    console.error(
      `classes-steps: ${outage ? 'the database is unavailable' : (error as Error)?.name}`,
    );
    return json({ success: false, error: 'The classes could not be read.' }, outage ? 503 : 500);
  }
};
