/**
 * `npm start`: builds the site, then serves `dist/` and `functions/` on 127.0.0.1 through
 * Netlify's own emulator, so headers, redirects, the 404 page, the functions and the database
 * behave locally as they do on Netlify. `--no-build` serves the existing `dist/`.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { readdir, readFile, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { getDatabase } from '@netlify/database';
import { NetlifyDev } from '@netlify/dev';
import { FunctionsHandler } from '@netlify/functions-dev';
import { startSessionLock, type SessionLock } from './db-session-lock.ts';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 8888);
const root = process.cwd();

if (!process.argv.includes('--no-build')) {
  const build = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// A functions build left by an earlier run makes the emulator's next build look for the
// function's included files inside that old build (ENOENT on content/site.yaml): start clean.
await rm(`${root}/.netlify/functions-serve`, { recursive: true, force: true });

// The emulator is a development server: before EVERY function call it rebuilds the function
// (esbuild plus a trace of every file it imports, about two seconds of CPU here) into a fresh
// temporary folder that it deletes afterwards, so that an edited source takes effect at once.
// `npm start` serves a finished build, like a deploy, so each function is built once, into a
// folder that stays (on its first call, made below before the server listens), and every later
// call runs that build, as Netlify runs a deployed function. An empty build folder is the
// emulator's own way of saying "use the last build". Restart `npm start` after editing functions/.
const functionsBuild = `${root}/.netlify/functions-serve/start`;
type Invoke = (
  request: Request,
  route: unknown,
  func: { buildData?: unknown },
  buildDirectory?: string,
) => Promise<Response>;
const handlerPrototype = FunctionsHandler.prototype as unknown as { invoke: Invoke };
const invokeFunction = handlerPrototype.invoke;
handlerPrototype.invoke = function (this: unknown, request, route, func) {
  return invokeFunction.call(this, request, route, func, func.buildData ? '' : functionsBuild);
};

// Edge functions, the AI gateway and the image CDN need the network; this site uses none.
const netlify = new NetlifyDev({
  projectRoot: root,
  edgeFunctions: { enabled: false },
  aiGateway: { enabled: false },
  images: { enabled: false },
  geolocation: { enabled: false },
  serverAddress: null,
});
await netlify.start();

const migrations = `${root}/netlify/database/migrations`;
if (netlify.db && existsSync(migrations)) {
  const applied = await netlify.db.applyMigrations(migrations);
  if (applied.length > 0) console.log(`Applied migrations: ${applied.join(', ')}`);
} else if (!netlify.db) {
  console.warn('The local database did not start: the forms will answer 503.');
}

// The embedded database is one Postgres session shared by every connection; the functions reach
// it through a proxy that gives it to one connection (one transaction) at a time.
let sessionLock: SessionLock | undefined;
if (netlify.db && process.env.NETLIFY_DB_URL) {
  sessionLock = await startSessionLock(process.env.NETLIFY_DB_URL);
  process.env.NETLIFY_DB_URL = sessionLock.url;
  console.log(`Local database (one session at a time): ${sessionLock.url}`);
}

const notFoundPage = await readFile(`${root}/dist/404.html`).catch(() => null);

async function send(response: Response, res: ServerResponse) {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key === 'set-cookie') return;
    headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (!response.body) return res.end();
  Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).pipe(res);
}

// The emulator runs every function call in a new worker thread that loads the function's build
// afresh (about 0.3 s of CPU here). Hundreds at once on a small machine would each crawl past the 30 s
// function time limit; like a real server, run a few at a time and queue the rest.
const FUNCTION_CONCURRENCY = Math.max(
  1,
  Number(process.env.FUNCTION_CONCURRENCY) || 2 * availableParallelism(),
);
let functionsRunning = 0;
const functionQueue: (() => void)[] = [];
async function functionTurn(): Promise<() => void> {
  if (functionsRunning >= FUNCTION_CONCURRENCY) {
    await new Promise<void>((resolve) => functionQueue.push(resolve));
  } else {
    functionsRunning += 1;
  }
  return () => {
    const next = functionQueue.shift();
    if (next) next();
    else functionsRunning -= 1;
  };
}
const isFunctionPath = (url: string | undefined) =>
  /^\/(api|\.netlify\/functions)\//.test(url ?? '');

async function handle(req: IncomingMessage, res: ServerResponse) {
  const done = isFunctionPath(req.url) ? await functionTurn() : undefined;
  res.once('close', () => done?.());
  // Netlify's edge tells a function the client's address, and ignores what the client claims; so
  // does this server (the emulator reads it from X-Forwarded-For): the waiver's audit trail and the
  // rate limits see the real peer locally too.
  req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  try {
    const collected = new Map<string, string>();
    const result = await netlify.handleAndIntrospectNodeRequest(req, {
      headersCollector: (key, value) => collected.set(key, value),
    });
    if (result) {
      const headers = new Headers(result.response.headers);
      for (const [key, value] of collected) if (!headers.has(key)) headers.set(key, value);
      const response = new Response(result.response.body, {
        status: result.response.status,
        statusText: result.response.statusText,
        headers,
      });
      return await send(response, res);
    }
    // Nothing matched: the 404 page, with the headers Netlify gives every path (the `/*` rule).
    await netlify.handle(new Request(new URL('/404', `http://${HOST}:${PORT}`)), {
      headersCollector: (key, value) => collected.set(key, value),
    });
    const headers: Record<string, string> = {};
    for (const [key, value] of collected) headers[key] = value;
    headers['content-type'] = 'text/html; charset=utf-8';
    res.writeHead(404, headers);
    res.end(notFoundPage ?? 'Not found');
  } catch (error) {
    console.error('Request failed:', req.method, req.url, error);
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('Internal error');
  }
}

// The emulator bundles each function on its first call; do that now, not on a visitor's submit.
for (const file of await readdir(`${root}/functions`).catch(() => [])) {
  const source = await readFile(`${root}/functions/${file}`, 'utf8');
  const path = source.match(/path:\s*['"](\/api\/[^'"]+)['"]/)?.[1];
  if (path)
    await netlify.handle(new Request(`http://${HOST}:${PORT}${path}`)).catch(() => undefined);
}

const server = createServer((req, res) => void handle(req, res));
server.listen(PORT, HOST, () => {
  console.log(`Serving the studio site on http://${HOST}:${PORT}`);
});

// The mail outbox: on Netlify the scheduled function `retry-mail` runs every five minutes; here
// the emulator runs the very same function every OUTBOX_INTERVAL_MS (30 s; 0 turns it off).
const OUTBOX_INTERVAL_MS = Number(process.env.OUTBOX_INTERVAL_MS ?? 30_000);
let draining = false;

// Asking the database whether any mail is due takes a millisecond; a run of the retry function
// in the emulator takes a fresh worker and about a second of CPU. So ask first, and run the
// function only when it has work (or when the question itself fails).
type DuePool = {
  query(text: string): Promise<{ rows: { due?: boolean }[] }>;
  end(): Promise<void>;
};
let duePool: DuePool | undefined;
async function mailIsDue(): Promise<boolean> {
  try {
    duePool ??= getDatabase({ connectionString: process.env.NETLIFY_DB_URL }).pool as DuePool;
    const { rows } = await duePool.query(
      `SELECT EXISTS (
         SELECT 1 FROM mail_outbox
          WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
            AND (locked_until IS NULL OR locked_until <= now())
       ) AS due`,
    );
    return rows[0]?.due !== false;
  } catch {
    return true;
  }
}

async function drainOutbox() {
  if (draining || !netlify.db) return;
  draining = true;
  try {
    if (!(await mailIsDue())) return;
    const response = await netlify.handle(
      new Request(`http://${HOST}:${PORT}/.netlify/functions/retry-mail`, { method: 'POST' }),
    );
    if (response && !response.ok) {
      console.warn(`The mail retry run answered ${response.status}; trying again later.`);
    }
    await response?.body?.cancel();
  } catch (error) {
    console.warn('The mail retry run failed; trying again later:', (error as Error)?.message);
  } finally {
    draining = false;
  }
}
const outboxTimer =
  OUTBOX_INTERVAL_MS > 0 ? setInterval(() => void drainOutbox(), OUTBOX_INTERVAL_MS) : undefined;
outboxTimer?.unref();
// Mail left owed while the server was stopped goes out soon after it starts.
if (OUTBOX_INTERVAL_MS > 0) setTimeout(() => void drainOutbox(), 2_000).unref();

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  clearInterval(outboxTimer);
  server.close();
  await duePool?.end().catch(() => undefined);
  await sessionLock?.close();
  await netlify.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
