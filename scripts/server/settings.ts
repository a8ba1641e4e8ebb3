import { readSetting, settingProblems } from '../../src/server/platform/settings.ts';

/**
 * The settings of `npm start`, read once from the environment through the site's one list of
 * settings (src/server/platform/settings.ts): every one has a default that suits a laptop, and a
 * value that cannot be read stops the server, naming it. The self-hosted mode (docs/running.md,
 * "Self-hosting") changes a few of them.
 */
export interface Settings {
  host: string;
  port: number;
  /** Any Postgres (the self-hosted mode); unset: the embedded database in `.netlify/db`. */
  databaseUrl: string | undefined;
  /** Where the embedded database keeps its data (`.netlify/db`, as Netlify's emulator did). */
  localDbDir: string | undefined;
  /** Behind a TLS proxy: the client is the last address of X-Forwarded-For, the scheme X-Forwarded-Proto. */
  trustProxy: boolean;
  /** How often the mail outbox is looked at (0: never). */
  outboxIntervalMs: number;
  /** A declared or streamed body larger than this gets 413 from the server itself. */
  maxBodyBytes: number;
  /** The longest pause between two pieces of a body before the server answers 408. */
  bodyIdleTimeoutMs: number;
  /** The longest a whole request (headers and body) may take to arrive before 408. */
  requestTimeoutMs: number;
  /** The longest the request line and headers may take to arrive (Node answers 408). */
  headersTimeoutMs: number;
  /** A function that has not answered by then gets the visitor a 504 (Netlify's limit is 30 s). */
  functionTimeoutMs: number;
  /** On SIGINT/SIGTERM, how long requests in flight and `waitUntil` work may still take. */
  shutdownTimeoutMs: number;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * Whether `npm start` runs as the studio's real server (docs/running.md, "Self-hosting"): on a
 * database of its own, or listening where other machines can reach it. Such a server must know
 * its public address (SITE_URL): links in mail and the origin the forms accept come from it, and
 * never from a request's Host header.
 */
export function isSelfHosted(settings: { host: string; databaseUrl: string | undefined }): boolean {
  return settings.databaseUrl !== undefined || !LOOPBACK.test(settings.host);
}

export function readSettings(): Settings {
  // Every setting, the functions' too: one that cannot be read stops the server at its start,
  // not a visitor's request later.
  const problems = settingProblems(process.env, { deployed: false });
  if (problems.length > 0)
    throw new Error(`settings that cannot be read:\n- ${problems.join('\n- ')}`);
  const host = readSetting('HOST') ?? '127.0.0.1';
  const databaseUrl = readSetting('NETLIFY_DB_URL');
  if (isSelfHosted({ host, databaseUrl }) && !readSetting('SITE_URL')) {
    throw new Error(
      `SITE_URL is not set: self-hosted (${databaseUrl ? 'NETLIFY_DB_URL is set' : `HOST is ${host}`}), ` +
        'the server needs its public address for the links it mails and the origin it accepts, ' +
        'e.g. SITE_URL=https://studio.example',
    );
  }
  return {
    host,
    port: readSetting('PORT'),
    databaseUrl,
    localDbDir: readSetting('LOCAL_DB_DIR'),
    trustProxy: readSetting('TRUST_PROXY'),
    outboxIntervalMs: readSetting('OUTBOX_INTERVAL_MS'),
    // The largest form body is the waiver's (1 MB); the margin keeps its own 413 in charge.
    maxBodyBytes: readSetting('MAX_BODY_BYTES'),
    bodyIdleTimeoutMs: readSetting('BODY_IDLE_TIMEOUT_MS'),
    requestTimeoutMs: readSetting('REQUEST_TIMEOUT_MS'),
    headersTimeoutMs: readSetting('HEADERS_TIMEOUT_MS'),
    functionTimeoutMs: readSetting('FUNCTION_TIMEOUT_MS'),
    shutdownTimeoutMs: readSetting('SHUTDOWN_TIMEOUT_MS'),
  };
}
