import { z } from 'zod';
import {
  address,
  addresses,
  checked,
  count,
  flag,
  key,
  keys,
  matching,
  milliseconds,
  rateLimit,
  siteAddress,
  text,
} from './kinds.ts';

function smtpUrlRule(value: string): string | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^smtps?:$/.test(url.protocol)) return 'must be an smtp:// or smtps:// address';
  // Its query becomes nodemailer's options, which could quietly turn TLS off again.
  const weakening = [...url.searchParams.keys()].find((name) =>
    /^(secure|requireTLS|ignoreTLS|opportunisticTLS)$/i.test(name),
  );
  return weakening
    ? `must be an address whose query does not set ${weakening} (SMTP_ALLOW_PLAINTEXT is the one switch)`
    : undefined;
}

/**
 * The site's settings: what the functions and the build read, in the order of docs/settings.md's
 * table (scripts/settings-table.ts writes it from here).
 */
export const siteSettings = z.object({
  SITE_URL: siteAddress({
    about:
      'the public address: canonical URLs, sitemap, `robots.txt`, the only origin the forms accept, every link in mail; set it for the build too; self-hosted, required',
    fallback: "Netlify's `URL`; else where `npm start` listens, `http://HOST:PORT`",
  }),
  SMTP_URL: checked(smtpUrlRule, {
    about:
      'the mail server, e.g. `smtps://user:password@smtp.example.com:465`; on `smtp://` the server must offer STARTTLS; required when deployed',
    fallback: 'unset: each mail is written to `MAIL_OUTBOX_DIR`, its path logged',
    secret: true,
    requiredWhenDeployed: true,
  }),
  SMTP_ALLOW_PLAINTEXT: flag(
    '`1`: an `smtp://` server may be spoken to without TLS (a relay on the same machine); otherwise no mail, nor password, goes to one that does not offer STARTTLS',
  ),
  MAIL_FROM: matching(/@/, 'must be an address, e.g. "Studio" <studio@example.com>', {
    about: 'the sender of every mail; required when deployed',
    fallback: '`"<studio name> website" <no-reply@localhost>`',
    requiredWhenDeployed: true,
  }),
  MAIL_OUTBOX_DIR: text({
    about:
      "where mail goes as `.eml` files without `SMTP_URL`: each readable by the site's user only, named by its row (`outbox-<id>.eml`, `sign-in-<key>.eml`), removed by an erasure and after 7 days",
    fallback: '`.netlify/outbox`',
  }),
  CONTACT_TO: address({
    about: 'the inbox contact messages go to',
    fallback: 'the e-mail in `content/site.yaml`',
  }),
  WAIVER_RECORDS_TO: address({
    about: 'the inbox signed waivers (with health information) are filed to',
    fallback: '`CONTACT_TO`',
  }),
  STAFF_EMAILS: addresses({
    about: 'who may sign in to the records desk: addresses separated by commas, in any case',
    fallback: '`CONTACT_TO`',
  }),
  WAIVER_ENCRYPTION_KEY: key({
    about:
      "the 32-byte key (base64 or hex) that encrypts the waivers' health information and stored PDFs; required when deployed, where a function without it refuses waivers",
    fallback: 'made once in `.netlify/waiver-encryption.key`',
    requiredWhenDeployed: true,
  }),
  WAIVER_ENCRYPTION_OLD_KEYS: keys({
    about:
      'earlier keys, separated by commas: what they encrypted still opens until `npm run rotate-key` has moved it to `WAIVER_ENCRYPTION_KEY` ([key rotation](operations.md#changing-the-encryption-key))',
    fallback: 'unset',
  }),
  STRIPE_SECRET_KEY: matching(
    /^(sk|rk)_(test|live)_\w+$/,
    'must be a Stripe secret or restricted key (sk_live_…, rk_live_…; sk_test_… in test mode)',
    {
      about:
        "the studio's own Stripe account: with it, private and in-home sessions and class places are paid online through Stripe Checkout ([payments](payments.md)); a secret",
      fallback: 'unset: everything is paid at the studio',
      secret: true,
    },
  ),
  STRIPE_WEBHOOK_SECRET: matching(
    /^whsec_\w+$/,
    'must be the signing secret of a Stripe webhook endpoint (whsec_…)',
    {
      about:
        "the signing secret of the webhook endpoint for `/api/stripe-webhook` in Stripe's dashboard: how the site knows a payment is real; required when deployed with `STRIPE_SECRET_KEY`",
      fallback: 'unset',
      secret: true,
      requiredWhenDeployedWith: 'STRIPE_SECRET_KEY',
    },
  ),
  STRIPE_API_URL: siteAddress({
    about:
      "tests only: where the Stripe SDK sends its requests instead of Stripe (the tests' stand-in); a deploy refuses it",
    fallback: "Stripe's own API",
    forbiddenWhenDeployed: true,
  }),
  DB_CONNECT_TIMEOUT_MS: milliseconds(5_000, {
    about: 'how long a function waits for a database connection before it answers `503`',
  }),
  DB_QUERY_TIMEOUT_MS: milliseconds(10_000, {
    about: 'how long it waits for one statement (a connection that hung is closed, not reused)',
  }),
  CONTENT_DIR: text({
    about: "where the functions read the studio's facts and the waiver text",
    fallback: '`content/`',
  }),
  BUILD_HOOK_URL: siteAddress({
    about:
      'Netlify: the build hook the daily rebuild POSTs to, so past events leave the Events page; a secret',
    fallback: 'unset',
    secret: true,
  }),
  BUILD_NOW: checked(
    (value) =>
      /(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be an instant with its offset, e.g. 2026-06-01T12:00:00Z',
    {
      about:
        'tests only: the instant the site is built at (e.g. `2026-06-01T12:00:00Z`); a deploy refuses it',
      fallback: 'the real time',
      forbiddenWhenDeployed: true,
    },
  ),
  CONSULTATION_BUSY_ICS_URL: checked(
    (value) =>
      /^(https?|webcals?):\/\//i.test(value) && URL.canParse(value.replace(/^webcals?:/i, 'https:'))
        ? undefined
        : 'must be an https:// or webcal:// address',
    {
      about:
        "the secret iCal address of the instructor's own calendar (Google, iCloud `webcal://`, Outlook): every event in it blocks the consultation slots it overlaps; a secret",
      fallback: "unset: only the weekly windows and the desk's blocks count",
      secret: true,
    },
  ),
  CONSULTATION_BUSY_TIMEOUT_MS: milliseconds(5_000, {
    about: 'how long fetching that calendar may take; after it, the last copy read stays in use',
  }),
  PAGES_DIR: text({
    about: 'the built site whose pages the functions fill in (`/consultation`, the manage page)',
    fallback: '`dist`',
  }),
  CONTACT_RATE_LIMIT: rateLimit('5/10m', 'messages one client may send'),
  WAIVER_RATE_LIMIT: rateLimit(
    '20/1h',
    'waivers one client may send; a waiver kiosk the desk turned on is not counted',
  ),
  BOOKING_RATE_LIMIT: rateLimit(
    '10/1h',
    "bookings (and changes on a booking's page) one IP address may send",
  ),
  CONSULTATION_EMAIL_LIMIT: rateLimit(
    '3/24h',
    'consultations that may be booked for one e-mail address',
  ),
  CONSULTATION_UPCOMING_PER_EMAIL: count(2, {
    about:
      'consultations to come one e-mail address may hold at once (any case; `ada+1@` is `ada@`)',
  }),
  CONSULTATION_UPCOMING_PER_NETWORK: count(4, {
    about:
      'consultations to come one network may hold at once (an IPv4 /24, an IPv6 /56, kept as a keyed hash); the desk names the bookings of a network holding three or more',
  }),
  WAIVER_COPY_LIMIT: rateLimit(
    '3/24h',
    "participant's copies of a waiver mailed to one address; past it the waiver is kept and the studio still gets its copy",
  ),
  WAIVER_RE_SIGN_DAYS: count(30, {
    about:
      'days a re-sign link mailed from the desk works; it is spent sooner once that address signs a waiver',
  }),
  LIST_RATE_LIMIT: rateLimit(
    '10/1h',
    "Get Notified sign-ups (and presses of a confirmation page's button) one client may send",
  ),
  LIST_CONFIRM_LIMIT: rateLimit(
    '3/24h',
    'confirmation mails sent to one address; past it the sign-up is answered as always and its mail held back',
  ),
  LIST_SEND_RATE: rateLimit(
    '100/1m',
    'event announcements queued per time: a list is sent in turns, each due one window after the last (set what the mail provider allows)',
  ),
  SIGN_IN_RATE_LIMIT: rateLimit(
    '10/15m',
    'desk sign-in links one client may ask for; and one device the desk was signed in on, which nothing else counts against',
  ),
  SIGN_IN_ADDRESS_LIMIT: rateLimit(
    '5/15m',
    'desk sign-in links one client may ask for one address',
  ),
  SIGN_IN_INBOX_LIMIT: rateLimit(
    '30/1h',
    'desk sign-in links mailed to one address in all, for devices it never signed in on (over any limit the desk answers as always and mails nothing)',
  ),
  OUTBOX_MAX_ATTEMPTS: count(12, { about: 'tries before a mail is marked failed' }),
  OUTBOX_BASE_DELAY_MS: milliseconds(60_000, {
    about: 'the wait after the first failure; it doubles after each further one',
  }),
  OUTBOX_MAX_DELAY_MS: milliseconds(3_600_000, { about: 'the longest wait between two tries' }),
  OUTBOX_LEASE_MS: milliseconds(120_000, {
    about: 'how long a sender holds a mail it is sending',
  }),
});
