import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { isSelfHosted, readSettings } from '../../scripts/server/settings.ts';
import {
  PLATFORM_VARIABLES,
  RENAMED_SETTINGS,
  SETTING_NAMES,
  SettingError,
  longestRateLimitWindow,
  readSetting,
  settingProblems,
  settingWordsOf,
  type SettingName,
} from '../../src/server/platform/settings';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const NAMES = SETTING_NAMES;

/** A value each kind of setting cannot read. */
const UNREADABLE: Partial<Record<SettingName, string>> = {
  SITE_URL: 'stillpoint.example',
  CONTACT_TO: 'the studio',
  WAIVER_RECORDS_TO: 'records@',
  STAFF_EMAILS: 'ana@example.test, nobody',
  MAIL_FROM: 'Still Point Pilates',
  SMTP_URL: 'https://user:hunter2@mail.example.test',
  SMTP_ALLOW_PLAINTEXT: 'maybe',
  WAIVER_ENCRYPTION_KEY: 'hunter2hunter2',
  WAIVER_ENCRYPTION_OLD_KEYS: `${'a'.repeat(64)},hunter2hunter2`,
  CONTACT_RATE_LIMIT: '5 a minute',
  WAIVER_RATE_LIMIT: '0/1h',
  SIGN_IN_RATE_LIMIT: '10/15d',
  SIGN_IN_ADDRESS_LIMIT: '/15m',
  WAIVER_COPY_LIMIT: '3/day',
  WAIVER_RE_SIGN_DAYS: '2.5',
  CONSULTATION_UPCOMING_PER_EMAIL: '0',
  CONSULTATION_UPCOMING_PER_NETWORK: 'four',
  SIGN_IN_INBOX_LIMIT: '30 per hour',
  OUTBOX_MAX_ATTEMPTS: '2.5',
  OUTBOX_BASE_DELAY_MS: '0',
  OUTBOX_MAX_DELAY_MS: 'an hour',
  OUTBOX_LEASE_MS: '-1',
  DB_CONNECT_TIMEOUT_MS: '5s',
  DB_QUERY_TIMEOUT_MS: 'Infinity',
  PORT: '80.5',
  TRUST_PROXY: 'sometimes',
  OUTBOX_INTERVAL_MS: '-30000',
  MAX_BODY_BYTES: '2MB',
  BODY_IDLE_TIMEOUT_MS: 'ten seconds',
  REQUEST_TIMEOUT_MS: 'NaN',
  HEADERS_TIMEOUT_MS: '1e',
  FUNCTION_TIMEOUT_MS: '30 s',
  SHUTDOWN_TIMEOUT_MS: '-5',
  BUILD_NOW: '2026-06-01 12:00',
  BUILD_HOOK_URL: 'api.netlify.com/build_hooks/abc',
  CONSULTATION_BUSY_ICS_URL: 'calendar.google.com/calendar/ical/secret/basic.ics',
  CONSULTATION_BUSY_TIMEOUT_MS: '5 seconds',
  BOOKING_RATE_LIMIT: '10 an hour',
  CONSULTATION_EMAIL_LIMIT: '3/1d',
  LIST_RATE_LIMIT: 'ten an hour',
  LIST_CONFIRM_LIMIT: '3/0h',
  LIST_SEND_RATE: '100 a minute',
  STRIPE_SECRET_KEY: 'pk_live_publishable',
  STRIPE_WEBHOOK_SECRET: 'sk_live_not_the_webhook',
  STRIPE_API_URL: '127.0.0.1:12111',
};

/** Settings that take any text (a path, a host, a database address). */
const ANY_TEXT: SettingName[] = [
  'MAIL_OUTBOX_DIR',
  'NETLIFY_DB_URL',
  'CONTENT_DIR',
  'PAGES_DIR',
  'HOST',
  'LOCAL_DB_DIR',
  'POSTGRES_BIN',
  'RESTORE_REPLACES',
];

describe('the list of settings', () => {
  test('every setting says what it is for and what it is when unset', () => {
    for (const name of NAMES) {
      expect(settingWordsOf(name).about.length, name).toBeGreaterThan(10);
      expect(settingWordsOf(name).fallback.length, name).toBeGreaterThan(0);
    }
  });

  test('every setting but free text has a value it cannot read (so each rule is tested here)', () => {
    expect([...Object.keys(UNREADABLE), ...ANY_TEXT].sort()).toEqual([...NAMES].sort());
  });

  test('a setting unset or blank reads as its default, and a number or limit reads its stated default', () => {
    for (const name of NAMES) {
      expect(readSetting(name, { [name]: '  ' }), name).toEqual(readSetting(name, {}));
    }
    expect(readSetting('OUTBOX_MAX_ATTEMPTS', {})).toBe(12);
    expect(readSetting('CONTACT_RATE_LIMIT', {})).toEqual({ limit: 5, windowSeconds: 600 });
    expect(readSetting('WAIVER_RATE_LIMIT', {})).toEqual({ limit: 20, windowSeconds: 3_600 });
    expect(readSetting('TRUST_PROXY', {})).toBe(false);
    expect(readSetting('SITE_URL', {})).toBeUndefined();
    expect(readSetting('WAIVER_ENCRYPTION_OLD_KEYS', {})).toEqual([]);
    for (const name of ['CONTACT_RATE_LIMIT', 'OUTBOX_LEASE_MS', 'PORT'] as const) {
      const stated = settingWordsOf(name).fallback.split(' ')[0].replaceAll('`', '');
      expect(readSetting(name, { [name]: stated })).toEqual(readSetting(name, {}));
    }
  });

  test('values as people write them are read', () => {
    expect(readSetting('CONTACT_RATE_LIMIT', { CONTACT_RATE_LIMIT: ' 100 / 30s ' })).toEqual({
      limit: 100,
      windowSeconds: 30,
    });
    expect(
      readSetting('STAFF_EMAILS', { STAFF_EMAILS: 'Ana@Example.test, ben@example.test,' }),
    ).toEqual(['Ana@Example.test', 'ben@example.test']);
    expect(readSetting('SITE_URL', { SITE_URL: 'https://stillpoint.example/' })?.origin).toBe(
      'https://stillpoint.example',
    );
    expect(readSetting('TRUST_PROXY', { TRUST_PROXY: 'true' })).toBe(true);
    expect(readSetting('TRUST_PROXY', { TRUST_PROXY: '0' })).toBe(false);
    expect(readSetting('PORT', { PORT: '0' })).toBe(0);
    expect(readSetting('MAIL_FROM', { MAIL_FROM: '"Studio" <studio@example.test>' })).toBe(
      '"Studio" <studio@example.test>',
    );
  });

  test.each(Object.entries(UNREADABLE) as [SettingName, string][])(
    '%s that cannot be read (%s) is an error naming it, said once in the log, never its default',
    (name, value) => {
      const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const read = () => readSetting(name, { [name]: value });
      expect(read).toThrow(SettingError);
      expect(read).toThrow(new RegExp(`^${name} must be `));
      expect(log).toHaveBeenCalledTimes(1);
      expect(String(log.mock.calls[0][0])).toMatch(new RegExp(`^Configuration: ${name} must be `));
      const quoted = !settingWordsOf(name).secret;
      expect(String(log.mock.calls[0][0]).includes(value), name).toBe(quoted);
      expect(settingProblems({ [name]: value }, { deployed: false })).toEqual([
        expect.stringMatching(new RegExp(`^${name} must be .*\\.$`)),
      ]);
    },
  );

  test('the longest rate-limit window is what a count must be kept for', () => {
    // A day: WAIVER_COPY_LIMIT, CONSULTATION_EMAIL_LIMIT and LIST_CONFIRM_LIMIT count per address per day.
    expect(longestRateLimitWindow({})).toBe(86_400);
    expect(
      longestRateLimitWindow({
        WAIVER_COPY_LIMIT: '3/2h',
        CONSULTATION_EMAIL_LIMIT: '3/90m',
        LIST_CONFIRM_LIMIT: '3/1h',
      }),
    ).toBe(7_200);
    expect(longestRateLimitWindow({ SIGN_IN_RATE_LIMIT: '3/48h' })).toBe(172_800);
  });

  test.each(Object.entries(RENAMED_SETTINGS))(
    '%s, renamed %s, is a problem naming the new name, and a function reading it says so once',
    (former, name) => {
      const told = `${former} is set, but that name is no longer read: the setting is now called ${name}; rename it`;
      expect(settingProblems({ [former]: '7/1h' }, { deployed: false })).toEqual([`${told}.`]);
      expect(settingProblems({ [former]: '7/1h' }, { deployed: true })).toContain(`${told}.`);
      expect(settingProblems({ [former]: ' ' }, { deployed: false })).toEqual([]);
      const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      // The former name's value is not read: the new name keeps its own, or its default.
      const read = (env: Record<string, string>) => readSetting(name as SettingName, env);
      expect(read({ [former]: '7/1h' })).toEqual(read({}));
      expect(read({ [former]: '7/1h', [name]: '9/1h' })).toEqual({
        limit: 9,
        windowSeconds: 3_600,
      });
      expect(log).toHaveBeenCalledTimes(1);
      expect(String(log.mock.calls[0][0])).toMatch(new RegExp(`^Configuration: ${told}\\. `));
    },
  );

  test('a secret is never quoted: not the database address, the mail server or the key', () => {
    for (const name of ['SMTP_URL', 'WAIVER_ENCRYPTION_KEY', 'NETLIFY_DB_URL'] as const) {
      expect(settingWordsOf(name).secret, name).toBe(true);
    }
  });
});

describe('npm start', () => {
  test('reads its own settings through the list', () => {
    vi.stubEnv('PORT', '0');
    vi.stubEnv('TRUST_PROXY', 'yes');
    vi.stubEnv('OUTBOX_INTERVAL_MS', '0');
    expect(readSettings()).toMatchObject({ port: 0, trustProxy: true, outboxIntervalMs: 0 });
  });

  test('does not start with a setting it cannot read, its own or a function’s, and names each', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.stubEnv('HEADERS_TIMEOUT_MS', 'soon');
    vi.stubEnv('WAIVER_RATE_LIMIT', 'twenty');
    expect(() => readSettings()).toThrow(
      /WAIVER_RATE_LIMIT must be .*\n- HEADERS_TIMEOUT_MS must be /,
    );
  });

  test('does not start while a renamed setting is set under its former name, and names the new one', () => {
    vi.stubEnv('NOTIFY_RATE_LIMIT', '10/1h');
    expect(() => readSettings()).toThrow(
      /NOTIFY_RATE_LIMIT is set, but that name is no longer read: the setting is now called LIST_RATE_LIMIT; rename it\./,
    );
    vi.unstubAllEnvs();
    vi.stubEnv('CONSULTATION_RATE_LIMIT', '10/1h');
    expect(() => readSettings()).toThrow(
      /the setting is now called BOOKING_RATE_LIMIT; rename it\./,
    );
  });
});

// docs/settings.md (beside the page for whoever runs the site) has the table of every setting.
const RUNNING = 'docs/settings.md';

test.skipIf(!existsSync(RUNNING))('docs/settings.md names every setting in its table', () => {
  const page = readFileSync(RUNNING, 'utf8');
  const rows = page.split('\n').filter((line) => line.trimStart().startsWith('|'));
  const named = (name: string) => rows.some((row) => new RegExp(`\\b${name}\\b`).test(row));
  const missing = NAMES.filter((name) => !named(name));
  expect(missing, `settings missing from the table of ${RUNNING}`).toEqual([]);
  expect(Object.keys(PLATFORM_VARIABLES).length).toBeGreaterThan(0);
});

describe('npm start self-hosted', () => {
  test('on its own database or on an address other machines reach, it is self-hosted; on loopback with the embedded one it is not', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) {
      expect(isSelfHosted({ host, databaseUrl: undefined }), host).toBe(false);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'studio.example']) {
      expect(isSelfHosted({ host, databaseUrl: undefined }), host).toBe(true);
    }
    expect(isSelfHosted({ host: '127.0.0.1', databaseUrl: 'postgres://db/studio' })).toBe(true);
  });
});

describe('SMTP_URL', () => {
  test('a query that would turn TLS off again is refused: SMTP_ALLOW_PLAINTEXT is the one switch', () => {
    for (const query of [
      'requireTLS=false',
      'ignoreTLS=true',
      'secure=false',
      'OpportunisticTLS=1',
    ]) {
      expect(
        () => readSetting('SMTP_URL', { SMTP_URL: `smtp://mail.example.test:587/?${query}` }),
        query,
      ).toThrow(/SMTP_URL must be an address whose query does not set/);
    }
    expect(readSetting('SMTP_URL', { SMTP_URL: 'smtp://relay.example.test:25/?pool=true' })).toBe(
      'smtp://relay.example.test:25/?pool=true',
    );
  });
});
