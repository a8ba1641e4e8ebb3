/**
 * Times the two functions as the site runs them locally: `node scripts/serve.ts --no-build`
 * (Netlify's emulator, its embedded Postgres) with `SMTP_URL` pointed at a real SMTP server
 * started here, so every request stores a row and sends real mail. Also times the cold
 * `import()` of each function's esbuild bundle in a fresh Node process.
 *
 * A function whose file does not exist yet is skipped with a message.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { SMTPServer } from 'smtp-server';

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

export interface FunctionResult {
  name: string;
  file: string;
  skipped?: string;
  latency?: Latency;
  coldImport?: { bundleBytes: number; runs: number; medianMs: number; error?: string };
}

export interface FunctionsReport {
  functions: FunctionResult[];
  mailsReceived: number;
  error?: string;
}

interface Endpoint {
  name: string;
  file: string;
  path: string;
  body: (i: number) => unknown;
  isOk: (status: number, body: unknown) => boolean;
}

/**
 * A 400x200 white PNG with a black stroke of width 2, as the signature pad exports it. A different
 * `seed` shifts the stroke, so each waiver of a run can carry a signature of its own.
 */
export function signatureDataUrl(seed = 0): string {
  const png = new PNG({ width: 400, height: 200 });
  png.data.fill(255);
  for (let x = 40; x < 360; x++) {
    const y = Math.round(100 + 40 * Math.sin((x + seed) / 25));
    for (let dy = -1; dy <= 0; dy++) {
      const offset = ((y + dy) * 400 + x) * 4;
      png.data[offset] = png.data[offset + 1] = png.data[offset + 2] = 0;
    }
  }
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

/** An empty honeypot and a page open long enough: what a person's form sends (not spam). */
export const PAST_SPAM_CHECKS = { website: '', fillTimeMs: 60_000 };

function endpoints(): Endpoint[] {
  const signature = signatureDataUrl();
  return [
    {
      name: 'send-email',
      file: 'functions/send-email.ts',
      path: '/api/send-email',
      body: (i) => ({
        name: `Bench Visitor ${i}`,
        email: `bench-${i}@bench.example.test`,
        service: 'private-session',
        message: `Benchmark message ${i}.\nPlease ignore: written by npm run bench.`,
        ...PAST_SPAM_CHECKS,
      }),
      isOk: (status, body) => status === 200 && (body as { ok?: unknown })?.ok === true,
    },
    {
      name: 'submit-waiver',
      file: 'functions/submit-waiver.ts',
      path: '/api/submit-waiver',
      body: (i) => ({
        waiver: {
          firstName: 'Bench',
          lastName: `Participant ${i}`,
          email: `bench-${i}@bench.example.test`,
          phone: '555-0100',
          emergencyName: 'Bench Contact',
          emergencyPhone: '555-0101',
          medicalConditions: '',
          medications: '',
          agreedToTerms: true,
          agreedToPhotos: false,
          signature,
        },
        ...PAST_SPAM_CHECKS,
      }),
      isOk: (status, body) => status === 200 && (body as { success?: unknown })?.success === true,
    },
  ];
}

const median = (values: number[]) => percentile(values, 50);

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

async function waitFor(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`no answer from ${url} within ${timeoutMs / 1000} s`);
}

async function timeRequests(origin: string, endpoint: Endpoint, count: number): Promise<Latency> {
  const times: number[] = [];
  const failures: Record<string, number> = {};
  let firstMs = NaN;
  const warmUp = 5;
  for (let i = 0; i < count + warmUp; i++) {
    const started = performance.now();
    const response = await fetch(origin + endpoint.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, 'user-agent': 'studio-bench' },
      body: JSON.stringify(endpoint.body(i)),
    });
    const text = await response.text();
    const elapsed = performance.now() - started;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (i === 0) firstMs = elapsed;
    if (!endpoint.isOk(response.status, body)) {
      failures[response.status] = (failures[response.status] ?? 0) + 1;
      if (Object.values(failures).reduce((a, b) => a + b, 0) === 1) {
        console.warn(`  ${endpoint.name}: ${response.status} ${text.slice(0, 200)}`);
      }
    }
    if (i >= warmUp) times.push(elapsed);
  }
  const failed = Object.values(failures).reduce((a, b) => a + b, 0);
  return {
    requests: count,
    sent: count + warmUp,
    ok: count + warmUp - failed,
    failures,
    firstMs,
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    meanMs: times.reduce((a, b) => a + b, 0) / times.length,
  };
}

/** Bundles a function as Netlify's esbuild bundler would and times a cold `import()` of it. */
async function coldImport(root: string, file: string, runs: number) {
  const { build } = await import('esbuild');
  const dir = await mkdtemp(join(tmpdir(), 'bench-fn-'));
  const outfile = join(dir, 'function.mjs');
  try {
    await build({
      entryPoints: [join(root, file)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      logLevel: 'silent',
      // CommonJS dependencies inside an ES module bundle still call require().
      banner: {
        js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);",
      },
    });
    const bundleBytes = (await stat(outfile)).size;
    const script =
      'const t = performance.now(); await import(process.argv[1]); ' +
      'process.stdout.write(String(performance.now() - t));';
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const run = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', script, pathToFileURL(outfile).href],
        { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } },
      );
      if (run.status !== 0) {
        return { bundleBytes, runs: 0, medianMs: NaN, error: run.stderr.trim().split('\n')[0] };
      }
      times.push(Number(run.stdout));
    }
    return { bundleBytes, runs, medianMs: median(times) };
  } catch (error) {
    return { bundleBytes: 0, runs: 0, medianMs: NaN, error: String(error).split('\n')[0] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchFunctions(options: {
  root: string;
  port: number;
  smtpPort: number;
  /** Timed requests per function, by name. */
  requests: Record<string, number>;
  coldRuns: number;
}): Promise<FunctionsReport> {
  const { root, port, smtpPort, requests, coldRuns } = options;
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
  if (present.length === 0) return { functions: results, mailsReceived: 0 };

  let mailsReceived = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        mailsReceived++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(smtpPort, '127.0.0.1', () => resolve());
  });

  const origin = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const server = spawn(process.execPath, ['scripts/serve.ts', '--no-build'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      CONTACT_TO: 'studio-inbox@bench.example.test',
      SITE_URL: origin,
      // Hundreds of timed requests from one address: the rate limits would answer 429.
      CONTACT_RATE_LIMIT: '100000/1m',
      WAIVER_RATE_LIMIT: '100000/1m',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (chunk) => output.push(String(chunk)));
  server.stderr?.on('data', (chunk) => output.push(String(chunk)));

  let error: string | undefined;
  try {
    await waitFor(`${origin}/`, server, 120_000);
    for (const endpoint of present) {
      const result = results.find((r) => r.name === endpoint.name)!;
      const count = requests[endpoint.name] ?? 100;
      console.log(`  ${endpoint.name}: ${count} requests, one at a time...`);
      result.latency = await timeRequests(origin, endpoint, count);
    }
    // Mail may leave through an outbox after the answer: give it a moment to arrive.
    const expected = results.reduce((n, r) => n + (r.latency?.ok ?? 0), 0);
    const deadline = Date.now() + 15_000;
    while (mailsReceived < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (caught) {
    error = `${String(caught)}\n${output.join('').slice(-2000)}`;
    console.error(`  function server failed: ${error}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => {
      if (server.exitCode !== null) return resolve(undefined);
      const timer = setTimeout(() => {
        server.kill('SIGKILL');
        resolve(undefined);
      }, 10_000);
      server.once('exit', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  }

  for (const endpoint of present) {
    const result = results.find((r) => r.name === endpoint.name)!;
    console.log(`  ${endpoint.name}: cold import of its bundle, ${coldRuns} fresh processes...`);
    result.coldImport = await coldImport(root, endpoint.file, coldRuns);
  }
  return { functions: results, mailsReceived, error };
}
