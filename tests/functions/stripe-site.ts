/**
 * For a function test file of paying online: the Stripe stand-in (tests/fixtures/stripe.ts)
 * started once, the site's settings pointing at it (the studio's keys set), the studio's clock set
 * to `at` before each test and every request checked against Stripe's description after it.
 */
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import stripeWebhook from '../../functions/stripe-webhook';
import { now, setClock } from '../../src/server/platform/clock';
import { startStripeStandIn, type SignedEvent, type StripeStandIn } from '../fixtures/stripe';

const SETTINGS = [
  'PAGES_DIR',
  'CONTACT_TO',
  'SITE_URL',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_API_URL',
] as const;

export function useStripeSite({ site, studio, at }: { site: string; studio: string; at: Date }) {
  let standIn: StripeStandIn | undefined;
  beforeAll(async () => {
    standIn = await startStripeStandIn({ now });
    process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
    process.env.CONTACT_TO = studio;
    process.env.SITE_URL = site;
    process.env.STRIPE_SECRET_KEY = 'sk_test_studio';
    process.env.STRIPE_WEBHOOK_SECRET = standIn.webhookSecret;
    process.env.STRIPE_API_URL = standIn.url;
  });
  afterAll(async () => {
    for (const name of SETTINGS) delete process.env[name];
    await standIn?.close();
  });
  beforeEach(() => {
    setClock(at);
    standIn!.reset();
  });
  afterEach(() => {
    setClock(undefined);
    expect(standIn!.violations).toEqual([]);
  });
  return {
    /** The stand-in (once the file's beforeAll has run). */
    get standIn(): StripeStandIn {
      if (!standIn) throw new Error('useStripeSite(): used before its beforeAll ran');
      return standIn;
    },
    /** Stripe's event, delivered to the site's webhook as Stripe delivers it. */
    deliver: (event: SignedEvent, signature = event.signature) =>
      stripeWebhook(
        new Request(`${site}/api/stripe-webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          body: event.payload,
        }),
      ),
  };
}
