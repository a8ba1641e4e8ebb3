/**
 * The settings of `npm start`, read once from the environment. Every one has a default that
 * suits a laptop; the self-hosted mode (docs/running.md, "Self-hosting") changes a few of them.
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

function number(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`${name} must be a number of 0 or more (got "${raw}")`);
  }
  return value;
}

export function readSettings(): Settings {
  const trust = process.env.TRUST_PROXY ?? '';
  return {
    host: process.env.HOST || '127.0.0.1',
    port: number('PORT', 8888),
    databaseUrl: process.env.NETLIFY_DB_URL || undefined,
    localDbDir: process.env.LOCAL_DB_DIR || undefined,
    trustProxy: trust === '1' || trust.toLowerCase() === 'true',
    outboxIntervalMs: number('OUTBOX_INTERVAL_MS', 30_000),
    // The largest form body is the waiver's (1 MB); the margin keeps its own 413 in charge.
    maxBodyBytes: number('MAX_BODY_BYTES', 2 * 1024 * 1024),
    bodyIdleTimeoutMs: number('BODY_IDLE_TIMEOUT_MS', 10_000),
    requestTimeoutMs: number('REQUEST_TIMEOUT_MS', 30_000),
    headersTimeoutMs: number('HEADERS_TIMEOUT_MS', 10_000),
    functionTimeoutMs: number('FUNCTION_TIMEOUT_MS', 30_000),
    shutdownTimeoutMs: number('SHUTDOWN_TIMEOUT_MS', 5_000),
  };
}
