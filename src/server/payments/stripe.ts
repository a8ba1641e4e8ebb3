/**
 * The studio's own Stripe account, through the official SDK. Without `STRIPE_SECRET_KEY` the site
 * takes no payment online: every booking is paid at the studio (`stripeAccount()` is undefined).
 */
import Stripe from 'stripe';
import { now } from '../platform/clock';
import { missingSetting, readSetting } from '../platform/settings';

export interface StripeAccount {
  stripe: Stripe;
  /** The webhook endpoint's signing secret; undefined only where no deploy checked it (npm start). */
  webhookSecret: string | undefined;
}

let cached: { key: string; api: string | undefined; account: StripeAccount } | undefined;

/** The account the site takes payments on, or undefined when payments are at the studio. */
export function stripeAccount(): StripeAccount | undefined {
  const key = readSetting('STRIPE_SECRET_KEY');
  if (!key) return undefined;
  const api = readSetting('STRIPE_API_URL');
  if (cached?.key !== key || cached.api !== api?.href) {
    const stripe = new Stripe(key, {
      // One try per call: a retry is the caller's, with the same idempotency key.
      maxNetworkRetries: 0,
      timeout: 20_000,
      appInfo: { name: 'still-point-pilates-site' },
      ...(api
        ? {
            host: api.hostname,
            port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
            protocol: api.protocol === 'https:' ? 'https' : 'http',
          }
        : {}),
    });
    cached = {
      key,
      api: api?.href,
      account: { stripe, webhookSecret: readSetting('STRIPE_WEBHOOK_SECRET') },
    };
  }
  return cached.account;
}

/**
 * The event Stripe sent, its signature checked against the webhook's secret at the site's own
 * clock (Stripe's five minutes of tolerance: an event signed earlier is a replay); any mismatch
 * throws the SDK's StripeSignatureVerificationError. A site with a key and no secret cannot know a
 * payment is real, and says so.
 */
export function verifiedEvent(account: StripeAccount, payload: Buffer, signature: string) {
  if (!account.webhookSecret) {
    throw missingSetting('STRIPE_WEBHOOK_SECRET', "to check that a payment event is Stripe's");
  }
  return account.stripe.webhooks.constructEvent(
    payload,
    signature,
    account.webhookSecret,
    undefined,
    undefined,
    // The moment it was received, in milliseconds, as the SDK reads it (it divides by 1000).
    now().getTime(),
  );
}

/** Stripe could not be reached or answered with a fault of its own (not our request's). */
export function isStripeOutage(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500)
  );
}
