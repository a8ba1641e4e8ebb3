/**
 * Every environment variable the functions and `npm start` read, in one list: what each is for,
 * its default, and how its value is read. A value that cannot be read is an error that names the
 * variable (and never quotes a secret), said once in the log: a setting is never quietly replaced
 * by its default. docs/running.md's table of settings lists the same names (a test checks it).
 *
 * This file imports nothing of the project, so `npm start` (scripts/server/settings.ts, run by
 * Node as it is) and the build's check of a deploy (src/integrations/deploy-settings.ts) read
 * through it too.
 */

/** A value given for a setting that cannot be read. */
export class SettingError extends Error {
  readonly setting: string;
  /** What the outbox records when a mail fails on it: the name, never the value. */
  readonly code: string;
  constructor(setting: string, message: string) {
    super(message);
    this.name = 'SettingError';
    this.setting = setting;
    this.code = `${setting} unreadable`;
  }
}

/**
 * A setting a deployed function cannot do without: the one clear line in the log that names it
 * (once per instance), and an error whose `code` names it too, so the outbox records it.
 */
export class MissingSettingError extends Error {
  readonly setting: string;
  readonly code: string;
  constructor(setting: string, purpose: string) {
    super(`${setting} is not set: ${purpose}`);
    this.name = 'MissingSettingError';
    this.setting = setting;
    this.code = `${setting} not set`;
  }
}

const reported = new Set<string>();

function sayOnce(key: string, line: string) {
  if (reported.has(key)) return;
  reported.add(key);
  console.error(`Configuration: ${line}. Set it in the site's environment variables.`);
}

export function missingSetting(setting: string, purpose: string): MissingSettingError {
  const error = new MissingSettingError(setting, purpose);
  sayOnce(`${setting} missing`, error.message);
  return error;
}

/** Requests allowed per window, e.g. `5/10m`. */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

interface Setting<T> {
  /** What it is for, in one line. */
  about: string;
  /** The default, as a person reads it. */
  fallback: string;
  /** The value when the variable is unset or blank. */
  unset: T;
  /** Reads a value that is set; throws `Unreadable` saying what it must be. */
  read(value: string): T;
  /** A secret (a password, a key): an error about it never quotes it. */
  secret?: boolean;
  /** A deployed site must set it: the build of a deploy stops without it. */
  requiredWhenDeployed?: boolean;
  /** A deployed site must not set it (a test's override): the build of a deploy stops with it. */
  forbiddenWhenDeployed?: boolean;
  /** A rate limit (`<count>/<window>`). */
  rateLimit?: true;
}

/** Why a value cannot be read: what it must be, e.g. "must be a number of 1 or more". */
class Unreadable extends Error {}

const must = (what: string): never => {
  throw new Unreadable(`must be ${what}`);
};

const EMAIL = /^[^\s@,]+@[^\s@,]+$/;

function text(about: string, fallback: string): Setting<string | undefined> {
  return { about, fallback, unset: undefined, read: (value) => value };
}

function address(about: string, fallback: string): Setting<string | undefined> {
  return {
    about,
    fallback,
    unset: undefined,
    read: (value) => (EMAIL.test(value) ? value : must('an e-mail address')),
  };
}

function addresses(about: string, fallback: string): Setting<string[] | undefined> {
  return {
    about,
    fallback,
    unset: undefined,
    read(value) {
      const list = value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      return list.length > 0 && list.every((part) => EMAIL.test(part))
        ? list
        : must('e-mail addresses separated by commas');
    },
  };
}

function siteAddress(about: string, fallback: string): Setting<URL | undefined> {
  return {
    about,
    fallback,
    unset: undefined,
    read(value) {
      const url = URL.canParse(value) ? new URL(value) : undefined;
      return url && /^https?:$/.test(url.protocol)
        ? url
        : must('an address like https://studio.example');
    },
  };
}

function number(
  about: string,
  unset: number,
  {
    min = 1,
    whole = false,
    fallback = `${unset}`,
  }: { min?: 0 | 1; whole?: boolean; fallback?: string } = {},
): Setting<number> {
  const rule = `${whole ? 'a whole number' : 'a number'} of ${min} or more`;
  return {
    about,
    fallback,
    unset,
    read(value) {
      const parsed = Number(value);
      const fits = Number.isFinite(parsed) && parsed >= min && (!whole || Number.isInteger(parsed));
      return fits ? parsed : must(rule);
    },
  };
}

/** A time in milliseconds (`min` 0: zero is allowed, and means "never" or "no limit"). */
function milliseconds(about: string, ms: number, min: 0 | 1 = 1): Setting<number> {
  return number(about, ms, { min, fallback: `${ms} (${ms / 1000} s)` });
}

const UNITS = { s: 1, m: 60, h: 3_600 } as const;

/** A limit written as `<count>/<window>`, e.g. `5/10m` (five per ten minutes), `20/1h`, `100/30s`. */
function rateLimit(
  about: string,
  fallback: `${number}/${number}${keyof typeof UNITS}`,
): Setting<RateLimit> {
  const read = (value: string): RateLimit => {
    const match = /^(\d+)\s*\/\s*(\d+)\s*([smh])$/.exec(value);
    const limit = Number(match?.[1]);
    const windowSeconds = Number(match?.[2]) * UNITS[(match?.[3] ?? 's') as keyof typeof UNITS];
    return match && limit >= 1 && windowSeconds >= 1
      ? { limit, windowSeconds }
      : must('a count per time, like 5/10m, 20/1h or 100/30s');
  };
  return { about, fallback, unset: read(fallback), read, rateLimit: true };
}

function flag(about: string): Setting<boolean> {
  return {
    about,
    fallback: 'false',
    unset: false,
    read(value) {
      if (/^(1|true|yes)$/i.test(value)) return true;
      return /^(0|false|no)$/i.test(value) ? false : must('true or false');
    },
  };
}

/** A 32-byte key written as base64 (44 characters) or hex (64 characters); else `undefined`. */
export function keyBytes(value: string): Buffer | undefined {
  const key = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/]+={0,2}$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined;
  return key?.length === 32 ? key : undefined;
}

/** The site's address when nothing says otherwise: `npm start`'s default, and the build's. */
export const LOCAL_SITE_URL = 'http://127.0.0.1:8888';

/** The settings a person gives the site. */
export const SETTINGS = {
  SITE_URL: siteAddress(
    "The site's public address: canonical URLs, the only origin the forms and the desk accept, the host of every link in mail; npm start self-hosted refuses to start without it",
    `Netlify's URL; under npm start the address it listens on; else ${LOCAL_SITE_URL}`,
  ),
  CONTACT_TO: address('Where the contact form’s messages go', 'the e-mail in content/site.yaml'),
  WAIVER_RECORDS_TO: address(
    'Where signed waivers (with health information) are filed',
    'CONTACT_TO',
  ),
  STAFF_EMAILS: addresses('Who may sign in to the records desk (comma-separated)', 'CONTACT_TO'),
  MAIL_FROM: {
    ...text(
      'The sender of every mail, e.g. "Still Point Pilates" <studio@example.com>',
      '"<studio name> website" <no-reply@localhost>',
    ),
    read: (value) =>
      value.includes('@') ? value : must('an address, e.g. "Studio" <studio@example.com>'),
    requiredWhenDeployed: true,
  },
  SMTP_URL: {
    ...text(
      'The mail server the functions send through, e.g. smtps://user:password@smtp.example.com',
      'none: each mail is written as an .eml file to MAIL_OUTBOX_DIR',
    ),
    read(value) {
      const url = URL.canParse(value) ? new URL(value) : undefined;
      if (!url || !/^smtps?:$/.test(url.protocol)) return must('an smtp:// or smtps:// address');
      // Its query becomes nodemailer's options, which could quietly turn TLS off again.
      const weakening = [...url.searchParams.keys()].find((key) =>
        /^(secure|requireTLS|ignoreTLS|opportunisticTLS)$/i.test(key),
      );
      return weakening
        ? must(
            `an address whose query does not set ${weakening} (SMTP_ALLOW_PLAINTEXT is the one switch)`,
          )
        : value;
    },
    secret: true,
    requiredWhenDeployed: true,
  },
  SMTP_ALLOW_PLAINTEXT: flag(
    'Lets an smtp:// SMTP_URL send without STARTTLS (a relay on the same machine); otherwise the mail server must offer TLS',
  ),
  MAIL_OUTBOX_DIR: text(
    'Where mail goes as .eml files when SMTP_URL is not set',
    '.netlify/outbox',
  ),
  WAIVER_ENCRYPTION_KEY: {
    about: "32 random bytes in base64 or hex that encrypt the waivers' health information",
    fallback: 'a key made once in .netlify/waiver-encryption.key (never on a deployed site)',
    unset: undefined as Buffer | undefined,
    read: (value) => keyBytes(value) ?? must('32 bytes, written as base64 or hex'),
    secret: true,
    requiredWhenDeployed: true,
  } satisfies Setting<Buffer | undefined>,
  WAIVER_ENCRYPTION_OLD_KEYS: {
    about:
      'Earlier encryption keys, separated by commas: what they sealed still opens until npm run rotate-key has moved it to WAIVER_ENCRYPTION_KEY',
    fallback: 'none',
    unset: [] as Buffer[],
    read(value) {
      const keys = value
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((part) => keyBytes(part));
      return keys.every((key): key is Buffer => key !== undefined)
        ? keys
        : must('keys of 32 bytes, written as base64 or hex, separated by commas');
    },
    secret: true,
  } satisfies Setting<Buffer[]>,
  NETLIFY_DB_URL: {
    ...text(
      'The Postgres the functions store into (set by Netlify Database when deployed there)',
      'npm start: the embedded Postgres in .netlify/db',
    ),
    secret: true,
  },
  CONTENT_DIR: text(
    'The folder of content/site.yaml and content/waiver.md the functions read',
    'content',
  ),
  BUILD_NOW: {
    ...text(
      'Tests only: the instant the site is built at (which events are still to come), e.g. 2026-06-01T12:00:00Z; a deploy refuses it',
      'the real time',
    ),
    read: (value) =>
      /(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value))
        ? value
        : must('an instant with its offset, e.g. 2026-06-01T12:00:00Z'),
    forbiddenWhenDeployed: true,
  },
  BUILD_HOOK_URL: {
    ...siteAddress(
      "Netlify's build hook the daily rebuild POSTs to, so past events leave the Events page",
      'none: the site is rebuilt only when deployed (said in the log once a day on Netlify)',
    ),
    secret: true,
  },
  PAGES_DIR: text(
    'The built site (astro build) whose pages the functions fill in: /consultation and the manage page',
    'dist',
  ),
  CONSULTATION_BUSY_ICS_URL: {
    ...text(
      "The secret iCal address of the instructor's own calendar: every event in it blocks the consultation slots it overlaps",
      'none: only her weekly windows and the spans blocked on the desk count',
    ),
    read: (value) =>
      /^(https?|webcals?):\/\//i.test(value) && URL.canParse(value.replace(/^webcals?:/i, 'https:'))
        ? value
        : must('an https:// or webcal:// address'),
    secret: true,
  },
  CONSULTATION_BUSY_TIMEOUT_MS: milliseconds(
    "How long fetching the instructor's calendar may take before the last copy is used",
    5_000,
  ),
  CONTACT_RATE_LIMIT: rateLimit('Contact messages one address may send', '5/10m'),
  WAIVER_RATE_LIMIT: rateLimit(
    'Waivers one address may send (a studio tablet signs a class in)',
    '20/1h',
  ),
  CONSULTATION_RATE_LIMIT: rateLimit(
    'Consultation bookings (and changes on the manage page) one IP address may send',
    '10/1h',
  ),
  CONSULTATION_EMAIL_LIMIT: rateLimit(
    'Consultations that may be booked for one e-mail address',
    '3/24h',
  ),
  SIGN_IN_RATE_LIMIT: rateLimit(
    'Sign-in links one client may ask for; and one device the desk was signed in on',
    '10/15m',
  ),
  SIGN_IN_ADDRESS_LIMIT: rateLimit(
    'Sign-in links one client may ask for one e-mail address',
    '5/15m',
  ),
  SIGN_IN_INBOX_LIMIT: rateLimit(
    'Sign-in links mailed to one address in all, for devices it never signed in on',
    '30/1h',
  ),
  WAIVER_COPY_LIMIT: rateLimit(
    "Participant's copies of a waiver mailed to one address (typed by anyone, verified by no one)",
    '3/24h',
  ),
  NOTIFY_RATE_LIMIT: rateLimit(
    'Get Notified sign-ups (and confirmations) one client may send',
    '10/1h',
  ),
  NOTIFY_CONFIRM_LIMIT: rateLimit(
    'Confirmation mails sent to one address (typed by anyone until it is confirmed)',
    '3/24h',
  ),
  LIST_SEND_RATE: rateLimit(
    'Announcement mails queued per time, so a long list goes at a pace the mail server accepts',
    '100/1m',
  ),
  OUTBOX_MAX_ATTEMPTS: number('Attempts at a mail before it is marked failed', 12, { whole: true }),
  OUTBOX_BASE_DELAY_MS: milliseconds(
    'Wait after a mail’s first failed attempt; doubles with each further one',
    60_000,
  ),
  OUTBOX_MAX_DELAY_MS: milliseconds('The longest wait between two attempts at a mail', 3_600_000),
  OUTBOX_LEASE_MS: milliseconds('How long a sender holds a mail it is sending', 120_000),
  DB_CONNECT_TIMEOUT_MS: milliseconds(
    'How long a function waits for a database connection before it answers 503',
    5_000,
  ),
  DB_QUERY_TIMEOUT_MS: milliseconds(
    'How long a function waits for one statement before it answers 503',
    10_000,
  ),
  POSTGRES_BIN: text(
    "npm run backup and restore (and the tests): the folder of PostgreSQL's programs (pg_dump, pg_restore)",
    'pg_dump on PATH, else the newest /usr/lib/postgresql/<version>/bin',
  ),
  // npm start (scripts/server/)
  HOST: text('npm start: the address it listens on', '127.0.0.1'),
  PORT: number('npm start: the port it listens on (0: any free port)', 8888, {
    min: 0,
    whole: true,
  }),
  LOCAL_DB_DIR: text('npm start: where the embedded Postgres keeps its data', '.netlify/db'),
  TRUST_PROXY: flag(
    'npm start behind a TLS proxy: the client is the last address of X-Forwarded-For, the scheme X-Forwarded-Proto',
  ),
  OUTBOX_INTERVAL_MS: milliseconds(
    'npm start: how often the mail outbox is looked at (0: never)',
    30_000,
    0,
  ),
  MAX_BODY_BYTES: number(
    'npm start: a larger request body gets 413 from the server itself',
    2 * 1024 * 1024,
    { min: 0, fallback: '2097152 (2 MB)' },
  ),
  BODY_IDLE_TIMEOUT_MS: milliseconds(
    'npm start: the longest pause within a request body before 408',
    10_000,
    0,
  ),
  REQUEST_TIMEOUT_MS: milliseconds(
    'npm start: the longest a whole request may take to arrive before 408',
    30_000,
    0,
  ),
  HEADERS_TIMEOUT_MS: milliseconds(
    'npm start: the longest the request line and headers may take to arrive',
    10_000,
    0,
  ),
  FUNCTION_TIMEOUT_MS: milliseconds(
    'npm start: a function that has not answered by then gets the visitor a 504',
    30_000,
    0,
  ),
  SHUTDOWN_TIMEOUT_MS: milliseconds(
    'npm start: on SIGINT or SIGTERM, how long requests in flight may still take',
    5_000,
    0,
  ),
} as const satisfies Record<string, Setting<unknown>>;

/**
 * What the platform tells the code (Netlify, its local tools, AWS Lambda): read, never set by
 * hand, so they are not settings. Their values are taken as they come.
 */
export const PLATFORM_VARIABLES = {
  URL: "Netlify: the site's main address",
  DEPLOY_PRIME_URL: "Netlify: the address of the deploy's branch or preview",
  DEPLOY_URL: 'Netlify: the address of this one deploy',
  CONTEXT: 'Netlify: production, deploy-preview, branch-deploy or dev',
  NETLIFY: 'Netlify: "true" in a Netlify build',
  NETLIFY_LOCAL: 'Netlify: "true" in its local tools',
  AWS_LAMBDA_FUNCTION_NAME: 'AWS Lambda (Netlify Functions): the running function',
  LAMBDA_TASK_ROOT: 'AWS Lambda (Netlify Functions): the folder the function runs from',
  // What npm start hands on to a function's `context`, as Netlify would.
  SITE_ID: "Netlify: the site's id",
  SITE_NAME: "Netlify: the site's name",
  DEPLOY_ID: "Netlify: the deploy's id",
  NETLIFY_ACCOUNT_ID: "Netlify: the account's id",
  AWS_REGION: 'AWS Lambda: the region the function runs in',
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<N extends SettingName> =
  (typeof SETTINGS)[N]['unset'] | ReturnType<(typeof SETTINGS)[N]['read']>;

/** The settings that hold a rate limit. */
export type RateLimitSetting = {
  [N in SettingName]: SettingValue<N> extends RateLimit ? N : never;
}[SettingName];

type Env = Record<string, string | undefined>;

/**
 * A setting's value: read from `env` when set, its default (`unset`) when unset or blank. A value
 * that cannot be read throws a SettingError naming the variable, and says so once in the log.
 */
export function readSetting<N extends SettingName>(
  name: N,
  env: Env = process.env,
): SettingValue<N> {
  const value = env[name]?.trim();
  if (!value) return SETTINGS[name].unset;
  try {
    return readValue(name, value);
  } catch (error) {
    if (error instanceof SettingError) sayOnce(`${name}=${value}`, error.message);
    throw error;
  }
}

/** A value that is set, read; else a SettingError that quotes it unless it is a secret. */
function readValue<N extends SettingName>(name: N, value: string): SettingValue<N> {
  const spec = SETTINGS[name] as Setting<SettingValue<N>>;
  try {
    return spec.read(value);
  } catch (problem) {
    if (!(problem instanceof Unreadable)) throw problem;
    const quoted = spec.secret ? '' : ` (got "${value}")`;
    throw new SettingError(name, `${name} ${problem.message}${quoted}`);
  }
}

const lowerFirst = (words: string) => words.charAt(0).toLowerCase() + words.slice(1);

/**
 * What is wrong with the settings in `env`: one sentence per value that cannot be read, and, for
 * a deploy, per setting a deployed site cannot do without.
 */
export function settingProblems(env: Env, { deployed }: { deployed: boolean }): string[] {
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]) {
    const value = env[name]?.trim();
    try {
      if (value) {
        readValue(name, value);
        if (deployed && spec.forbiddenWhenDeployed) {
          problems.push(`${name} is set: ${lowerFirst(spec.about)}; remove it.`);
        }
      } else if (deployed && spec.requiredWhenDeployed) {
        problems.push(`${name} is not set: ${lowerFirst(spec.about)}.`);
      }
    } catch (error) {
      if (!(error instanceof SettingError)) throw error;
      problems.push(`${error.message}.`);
    }
  }
  return problems;
}

/** The settings a deployed site must set, with what each is for. */
export const REQUIRED_WHEN_DEPLOYED: readonly [SettingName, string][] = (
  Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]
)
  .filter(([, spec]) => spec.requiredWhenDeployed)
  .map(([name, spec]) => [name, spec.about]);

/** The longest window of any rate limit, in seconds: how long a window's count is needed. */
export function longestRateLimitWindow(env: Env = process.env): number {
  const names = (Object.keys(SETTINGS) as SettingName[]).filter(
    (name) => (SETTINGS[name] as Setting<unknown>).rateLimit,
  );
  return Math.max(...names.map((name) => (readSetting(name, env) as RateLimit).windowSeconds));
}

/** The value of a platform variable, as it came. */
export function platformValue(name: keyof typeof PLATFORM_VARIABLES, env: Env = process.env) {
  return env[name] || undefined;
}
