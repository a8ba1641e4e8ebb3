import type { Config, Context } from '@netlify/functions';
import { sessionPayable } from '../src/server/booking/session-payment';
import { placePayable } from '../src/server/classes/payment';
import { outbox } from '../src/server/mail-kinds';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { readFeeQuietly } from '../src/server/payments/fees';
import { refundThenMail } from '../src/server/payments/refunds';
import { stripeAccount, isStripeOutage, verifiedEvent } from '../src/server/payments/stripe';
import {
  applyEvent,
  isHandled,
  rereadSession,
  type Payables,
} from '../src/server/payments/webhook';
import { BODY_TIMEOUT_MS, readCapped } from '../src/server/request/guard';
import { json, methodNotAllowed } from '../src/server/request/responses';

export const config: Config = { path: '/api/stripe-webhook' };

/** Stripe sends an event of a few kilobytes; anything far larger is not Stripe's. */
const MAX_BYTES = 512 * 1024;

const BODY_WORDS = {
  400: 'The body could not be read.',
  408: 'The body took too long to arrive.',
  413: 'Too large.',
} as const;

/** The kinds of booking paid online, each with what it does when its payment settles. */
const KINDS: Payables = { session: sessionPayable(outbox), place: placePayable(outbox) };

/**
 * Stripe's events about the Checkout Sessions the site opened, in order: the signature checked,
 * the session read again from Stripe, the event applied once (src/server/payments/webhook.ts),
 * refunds sent after the commit, then mails, then Stripe's fee of a payment just recorded. 2xx
 * tells Stripe the event is done with; a 5xx makes Stripe send it again later (an outage of the
 * database or of Stripe's API), which changes nothing twice.
 */
export default async function stripeWebhook(req: Request, context?: Context): Promise<Response> {
  if (req.method !== 'POST') return methodNotAllowed('POST');
  const account = stripeAccount();
  if (!account) {
    return json({ received: false, error: 'This site takes no payment online.' }, 404);
  }
  // Counted as it streams, whatever Content-Length says (a chunked body names none).
  const read = await readCapped(req, MAX_BYTES, BODY_TIMEOUT_MS);
  if (!read.ok) return json({ received: false, error: BODY_WORDS[read.problem] }, read.problem);
  const payload = Buffer.from(read.value);
  let event;
  try {
    event = verifiedEvent(account, payload, req.headers.get('stripe-signature') ?? '');
  } catch (error) {
    if ((error as Error).name === 'MissingSettingError') throw error;
    return json({ received: false, error: 'The signature does not match.' }, 400);
  }
  if (!isHandled(event.type)) return json({ received: true, outcome: `ignored: ${event.type}` });
  try {
    const session = await rereadSession(account, event);
    const applied = await applyEvent(KINDS, event, session);
    // After the commit: the refunds to Stripe, then the mails (payments/refunds.ts), then the
    // fee, last and never throwing, so it holds up nothing (payments/fees.ts).
    const paid = applied.paid;
    const after = refundThenMail(account, applied.refunds, applied.mails, outbox).then(
      () => paid && readFeeQuietly(account, paid),
    );
    if (context?.waitUntil) context.waitUntil(after);
    else await after;
    console.info(`stripe-webhook: ${event.type} ${event.id}: ${applied.outcome}`);
    return json({ received: true, outcome: applied.outcome });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError || isStripeOutage(error)) {
      return json({ received: false, error: 'Try again later.' }, 503, { 'Retry-After': '60' });
    }
    console.error(`stripe-webhook: ${event.type} ${event.id} failed: ${(error as Error).message}`);
    return json({ received: false, error: 'The event could not be applied.' }, 500);
  }
}
