/**
 * The server tests' one fixture: the real `npm start` (`node scripts/serve.ts --no-build`) in a
 * child process, on a free port of 127.0.0.1 in 9100-9199, with its own throwaway embedded
 * database and mail folder, so its memory can be read from /proc and nothing touches the
 * developer's `.netlify/db`.
 *
 * Nothing it starts outlives the test: each server leads its own process group, which
 * `stopStudios()` (after every server test file, tests/server/setup.ts) and this process's exit
 * end with SIGKILL, and the server ends its group itself when the test process is gone
 * (tests/server/orphan-guard.ts, told by the closing of an IPC channel).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const SERVE = join(ROOT, 'scripts', 'serve.ts');
const GUARD = join(import.meta.dirname, 'orphan-guard.ts');
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
  /**
   * Resolves once the server has printed `pattern` (its stdout and stderr are two pipes, read in
   * no set order: a line printed before an answer may be read after it).
   */
  said(pattern: RegExp | string): Promise<void>;
  /** The server's resident memory, in MB. */
  rssMb(): number;
  /**
   * Sends a signal and resolves with the exit code (null if it had to be killed: still running
   * 20 s after the signal; what it started is then ended too).
   */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null }>;
}

export interface StudioOptions {
  env?: Record<string, string>;
  /** The project to serve (default: this one). */
  cwd?: string;
  /**
   * How long it may take to say it is serving: the first start of a project bundles its
   * functions, which takes minutes on a machine whose cores are busy (default 300 s).
   */
  startTimeoutMs?: number;
}

/**
 * Every server started here and not yet exited: one list for the process (a runner loads this
 * module afresh for each test file), killed when the process exits.
 */
const RUNNING = Symbol.for('studio-server-tests.running');
const shared = globalThis as { [RUNNING]?: Set<ChildProcess> };
const running = (shared[RUNNING] ??= new Set<ChildProcess>());
if (!process.listeners('exit').some((f) => f.name === 'killRunning')) {
  process.once('exit', function killRunning() {
    for (const child of running) killGroup(child);
  });
}

/** Ends a server's whole process group (it and whatever it started) with SIGKILL. */
function killGroup(child: ChildProcess) {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

/**
 * Kills every server still running (a test that failed before stopping its own, a start that
 * timed out) with its process group, and resolves once they have exited.
 */
export async function stopStudios(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          killGroup(child);
        }),
    ),
  );
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
  // Its own process group (detached), so that it can be ended with all it started; an IPC
  // channel open for as long as this process lives (orphan-guard.ts).
  const child = spawn(process.execPath, ['--import', GUARD, SERVE, '--no-build'], {
    cwd: options.cwd ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  // The channel keeps nothing of this process alive either.
  child.channel?.unref();
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    // Whatever it started and left behind goes with it.
    killGroup(child);
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (chunk) => chunks.push(String(chunk)));
  child.stderr!.on('data', (chunk) => chunks.push(String(chunk)));
  const output = () => chunks.join('');

  // Ready when it says so (the line `npm start` prints once it answers).
  const READY = /Serving the studio site on (\S+)/;
  const url = await new Promise<string>((done, fail) => {
    const give = (reason: string) => {
      clearTimeout(timer);
      killGroup(child);
      fail(new Error(`the server did not start (${reason}):\n${output()}`));
    };
    const heard = () => {
      const found = READY.exec(output())?.[1];
      if (!found) return;
      clearTimeout(timer);
      child.stdout!.off('data', heard);
      child.off('close', closed);
      done(found);
    };
    // 'close', not 'exit': all it printed has been read by then (what it says when it refuses).
    const closed = (code: number | null) => give(`it exited with code ${code}`);
    const timer = setTimeout(
      () => give(`no word within ${options.startTimeoutMs ?? 300_000} ms`),
      options.startTimeoutMs ?? 300_000,
    );
    child.stdout!.on('data', heard);
    child.once('close', closed);
  });
  // What it printed on stderr before that line was in its pipe when the line was read, and is
  // read in the same turn of the event loop: after this one, output() holds it.
  await new Promise((done) => setImmediate(done));

  let exited: Promise<{ code: number | null }> | undefined;
  return {
    url,
    port,
    pid: child.pid!,
    child,
    output,
    said(pattern) {
      const found = () =>
        typeof pattern === 'string' ? output().includes(pattern) : pattern.test(output());
      return new Promise((done, fail) => {
        const check = () => {
          if (!found()) return;
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          done();
        };
        const timer = setTimeout(() => {
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          fail(new Error(`the server did not say ${pattern} within 30 s:\n${output()}`));
        }, 30_000);
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        check();
      });
    },
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
    },
    stop(signal = 'SIGTERM') {
      exited ??= new Promise((done) => {
        const finish = (code: number | null) => {
          clearTimeout(force);
          void rm(scratch, { recursive: true, force: true }).finally(() => done({ code }));
        };
        const force = setTimeout(() => killGroup(child), 20_000);
        if (child.exitCode !== null || child.signalCode !== null) return finish(child.exitCode);
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

/** Sends one normal contact message: its status, type and body. */
export async function sendContact(base: string, n = 0) {
  const response = await postJson(base, '/api/send-email', contactMessage(n));
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** An HTTP/1.1 exchange on a raw socket: what the server sends back, until it closes or `ms`. */
export function rawExchange(
  port: number,
  request: string | Buffer,
  ms = 30_000,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(request));
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      done({ text: Buffer.concat(chunks).toString('latin1'), closed });
    };
    const timer = setTimeout(() => finish(false), ms);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
  });
}
