/**
 * Times the form functions (a message, a waiver, a booking) as visitors meet them, through `npm start`
 * (`node scripts/serve.ts --no-build`), and the very same handler called in-process (its user
 * module imported from the same bundle, in a child process: bench/in-process.ts), one request at
 * a time and interleaved, so that a slow moment on a shared machine falls on both. The difference
 * is the server's own overhead. Every request stores a row and sends real mail to an SMTP server
 * started here (with no reverse DNS lookup: `smtp-server` does one per connection unless told
 * not to, ~100 ms here). Also times a cold `import()` of each function's bundle in a fresh process.
 *
 * The database is a throwaway embedded one (`--db=embedded`, the default of `npm start`) or a
 * throwaway PostgreSQL server (`--db=postgres`, Debian's, as the self-hosted mode and Netlify
 * Database are). A function whose file does not exist is skipped with a message.
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { startPostgres, type PostgresServer } from '../scripts/postgres.ts';
import {
  PERSON_SPAM_CHECKS,
  bookingBody,
  contactBody,
  sessionBody,
  waiverBody,
} from '../tests/fixtures/submissions.ts';

export type BenchDatabase = 'embedded' | 'postgres';

export interface Latency {
  /** Requests timed, after a few untimed warm-up requests (also counted in `sent`). */
  requests: number;
  sent: number;
  ok: number;
  /** Non-200 answers by status, e.g. `{ "429": 3 }`. */
  failures: Record<string, number>;
  firstMs: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
}

export interface Target {
  what: string;
  limitMs: number;
  actualMs: number;
  met: boolean;
}

export interface FunctionResult {
  name: string;
  file: string;
  skipped?: string;
  /** Through `npm start`, timed by the client. */
  latency?: Latency;
  /** The same handler called in-process, timed around the call. */
  inProcess?: Latency;
  /** `latency` minus `inProcess`, at the median and the 95th percentile. */
  overhead?: { p50Ms: number; p95Ms: number };
  /**
   * The server's share of each request through it: the client's time minus the function's own
   * (the server's `Server-Timing: function;dur=`), so the same request on both sides.
   */
  serverShare?: { p50Ms: number; p95Ms: number };
  targets?: Target[];
  coldImport?: { runs: number; medianMs: number; error?: string };
}

export interface FunctionsReport {
  database: BenchDatabase;
  functions: FunctionResult[];
  mailsReceived: number;
  error?: string;
}

/** Which side a request is sent by: through `npm start`, or to the handler in-process. */
type Side = 'server' | 'direct';

interface Endpoint {
  name: string;
  file: string;
  path: string;
  body: (i: number, side: Side) => unknown;
  targets: { p50: number; p95: number };
  /** The most `npm start` may add to the in-process time, at p50 (and at p95 when given). */
  overhead: { p50: number; p95?: number };
  /** Mails each stored submission sends. */
  mails: number;
  /** Looks up what the requests need (free slots) once the server runs. */
  prepare?: (origin: string, count: number) => Promise<void>;
}

/** Whether a form's answer says it stored the submission. */
export function succeeded(status: number, body: unknown): boolean {
  const answer = body as { success?: unknown } | undefined;
  return status === 200 && answer?.success === true;
}

/** What a booking page offers one request: the fields its form posts for one time or place. */
type Offer = Record<string, string>;

/** The value of the input named `name` in a piece of a page (as Astro writes it: name, then value). */
function inputValue(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

/**
 * A booking function measured as a visitor meets it: its page is read once the server runs
 * (`prepare`), and what it offers (`offers`: one entry per booking it can take, in the order
 * they are booked) is shared out in the order the requests are sent, the server's requests the
 * even entries and the in-process ones the odd, so every request books something of its own.
 */
function bookingEndpoint(booking: {
  name: string;
  file: string;
  path: string;
  /** The page whose forms offer the free times or places. */
  page: string;
  offers: (html: string) => Offer[];
  body: (offer: Offer, person: { name: string; email: string }) => unknown;
}): Endpoint {
  let offers: Offer[] = [];
  return {
    name: booking.name,
    file: booking.file,
    path: booking.path,
    body: (i, side) => {
      const offer = offers[2 * i + (side === 'direct' ? 1 : 0)];
      if (!offer) throw new Error(`${booking.name}: nothing left to book for request ${i}`);
      return booking.body(offer, {
        name: `Bench Visitor ${i}`,
        email: `bench-${side}-${i}@bench.example.test`,
      });
    },
    targets: { p50: 60, p95: 120 },
    overhead: { p50: 5, p95: 5 },
    // The visitor's confirmation and the studio's notice (and the studio's invite of a class
    // date, from its first place).
    mails: 2,
    async prepare(origin, count) {
      const page = await fetch(origin + booking.page);
      if (!page.ok) throw new Error(`${booking.page} answered ${page.status}`);
      offers = booking.offers(await page.text());
      if (offers.length < 2 * count) {
        throw new Error(
          `${booking.page} offers ${offers.length} bookings for ${2 * count}: ask for fewer (--booking-requests)`,
        );
      }
    },
  };
}

/** The free times a page lists (its slot radios), each one booking. */
const slotOffers = (html: string): Offer[] =>
  [...html.matchAll(/name="slot" value="([^"]+)"/g)].map((match) => ({ slot: match[1]! }));

/**
 * The private session's free times, each posted with the type and price its form holds (the
 * bench's content steps by a session's length with no buffer, so no two of them overlap).
 */
function sessionOffers(html: string): Offer[] {
  const sessionType = inputValue(html, 'sessionType');
  const price = inputValue(html, 'price');
  if (!sessionType || !price) throw new Error('/book/private has no session form');
  return slotOffers(html).map((offer) => ({ ...offer, sessionType, price }));
}

/**
 * The places of the open classes, an odd number of each class date (all its places left when
 * odd, else one fewer): its first place also stores the date and queues the studio's invite of
 * it, and with an odd number per date the two sides take turns at that.
 */
function classOffers(html: string): Offer[] {
  return html
    .split(/<li[\s>]/)
    .slice(1)
    .flatMap((entry) => {
      const form = /action="\/api\/classes\/book"[\s\S]*?<\/form>/.exec(entry)?.[0] ?? '';
      const [key, start, price] = ['class', 'start', 'price'].map((name) => inputValue(form, name));
      if (!key || !start || !price) return [];
      const left = Number(/data-seats-left="(\d+)"/.exec(entry)?.[1] ?? 0);
      return Array.from({ length: left % 2 ? left : left - 1 }, () => ({
        class: key,
        start,
        price,
      }));
    });
}

/** The three bookings: a consultation, a private session, a place in a class. */
const bookings = (): Endpoint[] => [
  bookingEndpoint({
    name: 'book-consultation',
    file: 'functions/book-consultation.ts',
    path: '/api/consultation/book',
    page: '/consultation',
    offers: slotOffers,
    body: (offer, person) => bookingBody(offer.slot!, person),
  }),
  bookingEndpoint({
    name: 'book-session',
    file: 'functions/book-session.ts',
    path: '/api/book-session',
    page: '/book/private',
    offers: sessionOffers,
    body: ({ sessionType, slot, price }, person) =>
      sessionBody(sessionType!, slot!, { ...person, price }),
  }),
  bookingEndpoint({
    name: 'book-class',
    file: 'functions/book-class.ts',
    path: '/api/classes/book',
    page: '/classes',
    offers: classOffers,
    body: (offer, person) => ({ ...offer, ...person, ...PERSON_SPAM_CHECKS }),
  }),
];

function endpoints(): Endpoint[] {
  return [
    {
      name: 'send-email',
      file: 'functions/send-email.ts',
      path: '/api/send-email',
      body: (i) =>
        contactBody({
          name: `Bench Visitor ${i}`,
          email: `bench-${i}@bench.example.test`,
          service: 'private-session',
          message: `Benchmark message ${i}.\nPlease ignore: written by npm run bench.`,
        }),
      targets: { p50: 30, p95: 60 },
      overhead: { p50: 10 },
      mails: 1,
    },
    {
      name: 'submit-waiver',
      file: 'functions/submit-waiver.ts',
      path: '/api/submit-waiver',
      body: (i) =>
        waiverBody({
          firstName: 'Bench',
          lastName: `Participant ${i}`,
          email: `bench-${i}@bench.example.test`,
        }),
      targets: { p50: 120, p95: 200 },
      overhead: { p50: 10 },
      mails: 2,
    },
    ...bookings(),
  ];
}

/** Replaces a `field: value` line of a YAML (or front matter) file. */
async function setField(file: string, field: string, value: string | number) {
  const text = await readFile(file, 'utf8');
  const line = new RegExp(`^${field}:.*$`, 'm');
  if (!line.test(text)) throw new Error(`${file} has no ${field}`);
  await writeFile(file, text.replace(line, `${field}: ${value}`));
}

/**
 * The studio's content, with room for every timed booking to take something of its own;
 * otherwise as the studio has it. Consultations: no buffer between two slots. Private sessions:
 * no buffer, a start every session length (so no two times offered overlap) and ten weeks ahead
 * (the consultations booked first take some of her hours). Classes: the timetable as it is,
 * 26 weeks ahead (its four places a class).
 */
async function benchContent(root: string, scratch: string): Promise<string> {
  const dir = join(scratch, 'content');
  await cp(join(root, 'content'), dir, { recursive: true });
  await setField(join(dir, 'consultation.yaml'), 'bufferMinutes', 0);
  const privateSession = await readFile(join(dir, 'sessions', 'private.md'), 'utf8');
  const length = /^lengthMinutes: (\d+)$/m.exec(privateSession)?.[1];
  if (!length) throw new Error('content/sessions/private.md has no lengthMinutes');
  const hours = join(dir, 'booking.yaml');
  await setField(hours, 'bufferMinutes', 0);
  await setField(hours, 'stepMinutes', length);
  await setField(hours, 'horizonDays', 70);
  await setField(join(dir, 'classes.yaml'), 'weeksAhead', 26);
  return dir;
}

const median = (values: number[]) => percentile(values, 50);

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** A mail server that counts what it is given; no reverse DNS lookup of each client. */
export async function startCountingSmtp(port: number, onMail: (raw: Buffer) => void = () => {}) {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    logger: false,
    maxClients: 1000,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        onMail(Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(port, '127.0.0.1', () => resolve());
  });
  return { close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}

export interface BenchServer {
  origin: string;
  /** The connection string the server's functions use (the session proxy for the embedded one). */
  databaseUrl: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node scripts/serve.ts --no-build` and waits until it serves. */
export async function startBenchServer(options: {
  root: string;
  port: number;
  env: Record<string, string>;
}): Promise<BenchServer> {
  const { root, port } = options;
  const output: string[] = [];
  const child = spawn(process.execPath, ['scripts/serve.ts', '--no-build'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const deadline = Date.now() + 180_000;
  let origin: string | undefined;
  while (!origin) {
    origin = /Serving the studio site on (\S+)/.exec(output.join(''))?.[1];
    if (origin) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start:\n${output.join('').slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const embedded = /Local database \(one session at a time\): (\S+)/.exec(output.join(''))?.[1];
  return {
    origin,
    databaseUrl: embedded ?? options.env.NETLIFY_DB_URL,
    child,
    output: () => output.join(''),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

interface Sample {
  ms: number;
  status: number;
  ok: boolean;
  /** The function's own time, from the server's Server-Timing header. */
  functionMs?: number;
}

function summarize(samples: Sample[], warmUp: number): Latency {
  const timed = samples.slice(warmUp).map((s) => s.ms);
  const failures: Record<string, number> = {};
  for (const sample of samples) {
    if (!sample.ok) failures[sample.status] = (failures[sample.status] ?? 0) + 1;
  }
  return {
    requests: timed.length,
    sent: samples.length,
    ok: samples.filter((s) => s.ok).length,
    failures,
    firstMs: samples[0]?.ms ?? NaN,
    p50Ms: percentile(timed, 50),
    p95Ms: percentile(timed, 95),
    meanMs: timed.reduce((a, b) => a + b, 0) / timed.length,
  };
}

/** The in-process side: a child that calls handlers from the bundles (bench/in-process.ts). */
function startInProcess(root: string, env: Record<string, string>) {
  const child = fork(join(root, 'bench', 'in-process.ts'), [], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(message: unknown) =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (answer: T & { error?: string }) =>
        answer.error ? reject(new Error(answer.error)) : resolve(answer),
      );
      child.send(message as object);
    });
  return {
    load: (name: string, file: string) => ask<{ loaded: string }>({ load: { name, file } }),
    call: (call: { name: string; url: string; body: string; headers: Record<string, string> }) =>
      ask<{ ms: number; status: number }>({ call }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

/** A function's module as npm start compiled it (scripts/server/bundles.ts). */
function bundleModule(root: string, name: string): string {
  const stamp = JSON.parse(
    readFileSync(join(root, '.netlify', 'start', 'functions.json'), 'utf8'),
  ) as { listed: { name: string }[]; compiled: { directory: string } };
  if (!stamp.listed.some((f) => f.name === name)) throw new Error(`no function named ${name}`);
  return join(root, stamp.compiled.directory, `${name}.mjs`);
}

/** A cold `import()` of a function's bundle (its user module) in a fresh Node process. */
function coldImport(root: string, file: string, runs: number, env: Record<string, string>) {
  const script =
    'const t = performance.now(); await import(process.argv[1]); ' +
    'process.stdout.write(String(performance.now() - t));';
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', script, pathToFileURL(file).href],
      { cwd: root, encoding: 'utf8', env: { ...process.env, ...env, NODE_ENV: 'production' } },
    );
    if (run.status !== 0) {
      return { runs: 0, medianMs: NaN, error: run.stderr.trim().split('\n')[0] };
    }
    times.push(Number(run.stdout));
  }
  return { runs, medianMs: median(times) };
}

export async function benchFunctions(options: {
  root: string;
  /** The server's port; the SMTP server and PostgreSQL take the next two. */
  port: number;
  /** Timed requests per function, by name. */
  requests: Record<string, number>;
  coldRuns: number;
  database?: BenchDatabase;
}): Promise<FunctionsReport> {
  const { root, port, requests, coldRuns } = options;
  const database = options.database ?? 'embedded';
  const all = endpoints();
  const present = all.filter((e) => existsSync(join(root, e.file)));
  const results: FunctionResult[] = all.map((e) => ({
    name: e.name,
    file: e.file,
    skipped: present.includes(e) ? undefined : `${e.file} does not exist yet`,
  }));
  for (const result of results) {
    if (result.skipped) console.log(`  skipping ${result.name}: ${result.skipped}`);
  }
  if (present.length === 0) return { database, functions: results, mailsReceived: 0 };

  let mailsReceived = 0;
  const smtp = await startCountingSmtp(port + 1, () => (mailsReceived += 1));
  const scratch = await mkdtemp(join(tmpdir(), 'studio-bench-'));
  let postgres: PostgresServer | undefined;
  let server: BenchServer | undefined;
  let inProcess: ReturnType<typeof startInProcess> | undefined;
  let error: string | undefined;
  const env: Record<string, string> = {
    SMTP_URL: `smtp://127.0.0.1:${port + 1}`,
    // The counting server speaks plaintext: TLS would measure the handshake, not the site.
    SMTP_ALLOW_PLAINTEXT: 'true',
    // The site's own address: the origin the forms accept, in the server and in-process alike.
    SITE_URL: `http://127.0.0.1:${port}`,
    CONTACT_TO: 'studio-inbox@bench.example.test',
    WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // Hundreds of timed requests from one address: the rate limits would answer 429.
    CONTACT_RATE_LIMIT: '1000000/1m',
    WAIVER_RATE_LIMIT: '1000000/1m',
    WAIVER_COPY_LIMIT: '1000000/1h',
    BOOKING_RATE_LIMIT: '1000000/1m',
    CONSULTATION_EMAIL_LIMIT: '1000000/1m',
    CONSULTATION_UPCOMING_PER_EMAIL: '1000000',
    CONSULTATION_UPCOMING_PER_NETWORK: '1000000',
    OUTBOX_INTERVAL_MS: '0',
    LOCAL_DB_DIR: join(scratch, 'db'),
  };
  try {
    env.CONTENT_DIR = await benchContent(root, scratch);
    if (database === 'postgres') {
      postgres = await startPostgres();
      env.NETLIFY_DB_URL = postgres.url();
    }
    server = await startBenchServer({ root, port, env });
    const origin = server.origin;
    inProcess = startInProcess(root, { ...env, NETLIFY_DB_URL: server.databaseUrl });
    for (const endpoint of present) {
      const result = results.find((r) => r.name === endpoint.name)!;
      await inProcess.load(endpoint.name, bundleModule(root, endpoint.name));
      const count = requests[endpoint.name] ?? 100;
      const warmUp = 5;
      await endpoint.prepare?.(origin, count + warmUp);
      console.log(`  ${endpoint.name}: ${count} requests each way, one at a time, interleaved...`);
      const viaServer: Sample[] = [];
      const direct: Sample[] = [];
      const headers = { 'content-type': 'application/json', origin, 'user-agent': 'studio-bench' };
      for (let i = 0; i < count + warmUp; i++) {
        const body = JSON.stringify(endpoint.body(i, 'server'));
        const started = performance.now();
        const response = await fetch(origin + endpoint.path, { method: 'POST', headers, body });
        const text = await response.text();
        const ms = performance.now() - started;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const ok = succeeded(response.status, parsed);
        if (!ok && viaServer.every((s) => s.ok)) {
          console.warn(`  ${endpoint.name}: ${response.status} ${text.slice(0, 200)}`);
        }
        const functionMs = Number(
          /function;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1],
        );
        viaServer.push({ ms, status: response.status, ok, functionMs });
        const call = await inProcess.call({
          name: endpoint.name,
          url: origin + endpoint.path,
          body: JSON.stringify(endpoint.body(i, 'direct')),
          headers,
        });
        direct.push({ ...call, ok: call.status === 200 });
      }
      result.latency = summarize(viaServer, warmUp);
      result.inProcess = summarize(direct, warmUp);
      result.overhead = {
        p50Ms: result.latency.p50Ms - result.inProcess.p50Ms,
        p95Ms: result.latency.p95Ms - result.inProcess.p95Ms,
      };
      const shares = viaServer
        .slice(warmUp)
        .filter((s) => Number.isFinite(s.functionMs))
        .map((s) => s.ms - s.functionMs!);
      result.serverShare = { p50Ms: percentile(shares, 50), p95Ms: percentile(shares, 95) };
      result.targets = [
        {
          what: 'p50 through npm start',
          limitMs: endpoint.targets.p50,
          actualMs: result.latency.p50Ms,
          met: result.latency.p50Ms <= endpoint.targets.p50,
        },
        {
          what: 'p95 through npm start',
          limitMs: endpoint.targets.p95,
          actualMs: result.latency.p95Ms,
          met: result.latency.p95Ms <= endpoint.targets.p95,
        },
        {
          what: 'server overhead at p50 (npm start p50 minus in-process p50)',
          limitMs: endpoint.overhead.p50,
          actualMs: result.overhead.p50Ms,
          met: result.overhead.p50Ms <= endpoint.overhead.p50,
        },
        ...(endpoint.overhead.p95 === undefined
          ? []
          : [
              {
                what: 'server overhead at p95 (npm start p95 minus in-process p95)',
                limitMs: endpoint.overhead.p95,
                actualMs: result.overhead.p95Ms,
                met: result.overhead.p95Ms <= endpoint.overhead.p95,
              },
            ]),
        {
          what: "server's share of a request at p50 (client time minus Server-Timing)",
          limitMs: 10,
          actualMs: result.serverShare.p50Ms,
          met: result.serverShare.p50Ms <= 10,
        },
      ];
    }
    // Mail may leave after the answer: give it a moment to arrive.
    const expected = results.reduce(
      (n, r) =>
        n +
        ((r.latency?.ok ?? 0) + (r.inProcess?.ok ?? 0)) *
          (all.find((e) => e.name === r.name)?.mails ?? 1),
      0,
    );
    const deadline = Date.now() + 30_000;
    while (mailsReceived < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const endpoint of present) {
      const result = results.find((r) => r.name === endpoint.name)!;
      console.log(`  ${endpoint.name}: cold import of its bundle, ${coldRuns} fresh processes...`);
      result.coldImport = coldImport(root, bundleModule(root, endpoint.name), coldRuns, env);
    }
  } catch (caught) {
    error = `${String(caught)}\n${server?.output().slice(-2000) ?? ''}`;
    console.error(`  function bench failed: ${error}`);
  } finally {
    await inProcess?.stop();
    await server?.stop();
    await postgres?.stop();
    await smtp.close();
    await rm(scratch, { recursive: true, force: true });
  }
  return { database, functions: results, mailsReceived, error };
}
