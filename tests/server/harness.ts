/**
 * The server tests' one fixture: the real `npm start` (`node scripts/serve.ts --no-build`) in a
 * child process, on a free port of 127.0.0.1 in 9100-9199, with its own throwaway embedded
 * database and mail folder, so its memory can be read from /proc and nothing touches the
 * developer's `.netlify/db`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const SERVE = join(ROOT, 'scripts', 'serve.ts');
/** A fixed test key, so that no key file is made in the project. */
const TEST_KEY = 'a'.repeat(64);

/** Builds the site once if there is no `dist/` yet (the server tests serve the real one). */
export function ensureBuilt(): void {
  if (existsSync(join(ROOT, 'dist', 'index.html'))) return;
  const build = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) throw new Error('astro build failed');
}

async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((done) => {
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

const taken = new Set<number>();
/** A free port in 9100-9199 not handed out before in this process. */
export async function freePort(): Promise<number> {
  const start = 9100 + Math.floor(Math.random() * 100);
  for (let i = 0; i < 100; i++) {
    const port = 9100 + ((start - 9100 + i) % 100);
    if (!taken.has(port) && (await isFree(port))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port in 9100-9199');
}

export interface HangingDatabase {
  /** A PostgreSQL address for it. */
  url: string;
  /** Drops the connections it holds and stops listening. */
  close(): Promise<void>;
}

/** A database that hangs: a listener on 127.0.0.1 that accepts every connection, never answering. */
export async function startHangingDatabase(): Promise<HangingDatabase> {
  const port = await freePort();
  const held = new Set<Socket>();
  const server = createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return {
    url: `postgres://studio:secret@127.0.0.1:${port}/studio`,
    async close() {
      for (const socket of held) socket.destroy();
      await new Promise((done) => server.close(done));
    },
  };
}

export interface Studio {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Everything the server printed so far. */
  output(): string;
  /** The server's resident memory, in MB. */
  rssMb(): number;
  /** Sends a signal and resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

export interface StudioOptions {
  env?: Record<string, string>;
  /** The project to serve (default: this one). */
  cwd?: string;
  startTimeoutMs?: number;
}

export async function startStudio(options: StudioOptions = {}): Promise<Studio> {
  const port = await freePort();
  const scratch = await mkdtemp(join(tmpdir(), 'studio-server-test-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['NETLIFY_DB_URL', 'SMTP_URL', 'CONTACT_TO', 'TRUST_PROXY', 'SITE_URL']) {
    delete env[name];
  }
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOCAL_DB_DIR: join(scratch, 'db'),
    MAIL_OUTBOX_DIR: join(scratch, 'outbox'),
    OUTBOX_INTERVAL_MS: '0',
    CONTACT_RATE_LIMIT: '1000000/1m',
    WAIVER_RATE_LIMIT: '1000000/1m',
    WAIVER_COPY_LIMIT: '1000000/1h',
    WAIVER_ENCRYPTION_KEY: TEST_KEY,
    ...options.env,
  });
  // Self-hosted (on an external database) it needs its address; a test may leave it out on purpose.
  if (env.NETLIFY_DB_URL && !Object.hasOwn(options.env ?? {}, 'SITE_URL')) {
    env.SITE_URL = `http://127.0.0.1:${port}`;
  }
  const child = spawn(process.execPath, [SERVE, '--no-build'], {
    cwd: options.cwd ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (chunk) => chunks.push(String(chunk)));
  child.stderr!.on('data', (chunk) => chunks.push(String(chunk)));
  const output = () => chunks.join('');

  const deadline = Date.now() + (options.startTimeoutMs ?? 90_000);
  let url: string | undefined;
  while (!url) {
    url = /Serving the studio site on (\S+)/.exec(output())?.[1];
    if (url) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start:\n${output()}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }

  let exited: Promise<{ code: number | null; ms: number }> | undefined;
  return {
    url,
    port,
    pid: child.pid!,
    child,
    output,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
    },
    stop(signal = 'SIGTERM') {
      exited ??= new Promise((done) => {
        const started = Date.now();
        const finish = (code: number | null) => {
          clearTimeout(force);
          void rm(scratch, { recursive: true, force: true }).finally(() =>
            done({ code, ms: Date.now() - started }),
          );
        };
        const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
        if (child.exitCode !== null) return finish(child.exitCode);
        child.once('exit', (code) => finish(code));
        child.kill(signal);
      });
      return exited;
    },
  };
}

/** A copy of tests/server/fixture (a tiny site with test functions) in a temporary folder. */
export async function fixtureProject(): Promise<{ root: string; remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'studio-fixture-'));
  await cp(join(import.meta.dirname, 'fixture'), root, { recursive: true });
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/** A contact message as the site's form sends it (not spam). */
export function contactMessage(n = 0) {
  return {
    name: `Server Test ${n}`,
    email: `server-test-${n}@example.test`,
    service: '',
    message: `A message from the server tests (${n}).`,
    website: '',
    fillTimeMs: 60_000,
  };
}

/** POSTs JSON as the site's own page does (with its Origin). */
export function postJson(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { origin: base, 'content-type': 'application/json', ...headers },
    body:
      typeof body === 'string' || body instanceof Uint8Array
        ? (body as BodyInit)
        : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
}

/** Times one normal contact message: its status, type and milliseconds. */
export async function timedContact(base: string, n = 0) {
  const started = performance.now();
  const response = await postJson(base, '/api/send-email', contactMessage(n));
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    ms: performance.now() - started,
    text,
  };
}

/** An HTTP/1.1 exchange on a raw socket: what the server sends back, until it closes or `ms`. */
export function rawExchange(
  port: number,
  request: string | Buffer,
  ms = 5_000,
): Promise<{ text: string; closed: boolean; firstByteMs: number }> {
  return new Promise((done) => {
    const started = performance.now();
    let firstByteMs = NaN;
    const chunks: Buffer[] = [];
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(request));
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      done({ text: Buffer.concat(chunks).toString('latin1'), closed, firstByteMs });
    };
    const timer = setTimeout(() => finish(false), ms);
    socket.on('data', (chunk) => {
      if (chunks.length === 0) firstByteMs = performance.now() - started;
      chunks.push(chunk);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
  });
}
