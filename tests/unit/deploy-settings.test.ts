import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { deployProblems } from '../../src/integrations/deploy-settings';

const complete = {
  NETLIFY: 'true',
  CONTEXT: 'production',
  SMTP_URL: 'smtps://studio:secret@smtp.example.test',
  MAIL_FROM: '"Studio" <studio@example.test>',
  WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

describe('a deployed build', () => {
  test.each(['production', 'deploy-preview', 'branch-deploy'])(
    'a %s build with every setting has no problem',
    (CONTEXT) => {
      expect(deployProblems({ ...complete, CONTEXT })).toEqual([]);
    },
  );

  test.each(['SMTP_URL', 'MAIL_FROM', 'WAIVER_ENCRYPTION_KEY'] as const)(
    'without %s fails, naming it',
    (name) => {
      const problems = deployProblems({ ...complete, [name]: '' });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${name} is not set: `));
    },
  );

  test("with the studio's Stripe key but not its webhook's secret fails, naming the secret", () => {
    const key = { ...complete, STRIPE_SECRET_KEY: 'sk_live_studio123' };
    expect(deployProblems(key)).toEqual([
      expect.stringMatching(/^STRIPE_WEBHOOK_SECRET is not set, and STRIPE_SECRET_KEY is: /),
    ]);
    expect(deployProblems({ ...key, STRIPE_WEBHOOK_SECRET: 'whsec_studio456' })).toEqual([]);
    // Without a key the site is paid at the studio, and needs no secret.
    expect(deployProblems(complete)).toEqual([]);
    // A publishable key in the secret's place is named, and not quoted.
    expect(
      deployProblems({
        ...key,
        STRIPE_SECRET_KEY: 'pk_live_oops',
        STRIPE_WEBHOOK_SECRET: 'whsec_x',
      }),
    ).toEqual([
      expect.stringMatching(/^STRIPE_SECRET_KEY must be a Stripe secret or restricted key .*\.$/),
    ]);
  });

  test('that still sets a renamed setting under its former name fails, naming the new name', () => {
    expect(deployProblems({ ...complete, NOTIFY_CONFIRM_LIMIT: '3/24h' })).toEqual([
      'NOTIFY_CONFIRM_LIMIT is set, but that name is no longer read: the setting is now called LIST_CONFIRM_LIMIT; rename it.',
    ]);
  });

  test('names every missing setting at once', () => {
    expect(deployProblems({ NETLIFY: 'true', CONTEXT: 'deploy-preview' })).toHaveLength(3);
  });

  test('refuses a key of the wrong size and an address that is not SMTP', () => {
    expect(
      deployProblems({
        ...complete,
        WAIVER_ENCRYPTION_KEY: randomBytes(16).toString('base64'),
        SMTP_URL: 'https://mail.example.test',
      }),
    ).toEqual([
      'SMTP_URL must be an smtp:// or smtps:// address.',
      'WAIVER_ENCRYPTION_KEY must be 32 bytes, written as base64 or hex.',
    ]);
  });

  test('names any other setting it cannot read, quoting the value unless it is a secret', () => {
    expect(
      deployProblems({ ...complete, CONTACT_RATE_LIMIT: 'many', OUTBOX_MAX_ATTEMPTS: '2.5' }),
    ).toEqual([
      'CONTACT_RATE_LIMIT must be a count per time, like 5/10m, 20/1h or 100/30s (got "many").',
      'OUTBOX_MAX_ATTEMPTS must be a whole number of 1 or more (got "2.5").',
    ]);
  });
});

test('a deployed build with its clock set by BUILD_NOW fails, naming it', () => {
  expect(deployProblems({ ...complete, BUILD_NOW: '2026-06-01T12:00:00Z' })).toEqual([
    expect.stringMatching(/^BUILD_NOW is set: tests only: .*; remove it\.$/),
  ]);
});

test("a deployed build reads the site's settings only, not npm start's", () => {
  expect(deployProblems({ ...complete, PORT: 'eighty', TRUST_PROXY: 'sometimes' })).toEqual([]);
});

describe('a build anywhere else', () => {
  test.each([
    ['locally', {}],
    ['in Netlify dev', { NETLIFY: 'true', CONTEXT: 'dev' }],
  ])('%s needs none of them', (_, env) => {
    expect(deployProblems(env)).toEqual([]);
  });
});
