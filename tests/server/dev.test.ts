/**
 * `npm run dev` (`astro dev`): the pages from Astro's dev server, the forms answered by the
 * functions as `npm start` runs them, on a database of its own here; stopping the dev server
 * stops them too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { contactMessage, freePort, ROOT } from './harness.ts';

let dev: ChildProcess;
let scratch: string;
let base: string;
let output = '';

beforeAll(async () => {
  const port = await freePort();
  scratch = await mkdtemp(join(tmpdir(), 'studio-dev-test-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
  for (const name of ['NETLIFY_DB_URL', 'SMTP_URL', 'SITE_URL', 'URL', 'CONTACT_TO', 'NODE_ENV']) {
    delete env[name];
  }
  // As a developer runs it, not as a test: Astro's dev server behaves otherwise under Vitest.
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
  Object.assign(env, {
    LOCAL_DB_DIR: join(scratch, 'db'),
    MAIL_OUTBOX_DIR: join(scratch, 'outbox'),
    OUTBOX_INTERVAL_MS: '0',
    WAIVER_ENCRYPTION_KEY: 'a'.repeat(64),
  });
  dev = spawn(
    process.execPath,
    ['node_modules/astro/bin/astro.mjs', 'dev', '--port', String(port)],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  dev.stdout!.on('data', (chunk) => (output += String(chunk)));
  dev.stderr!.on('data', (chunk) => (output += String(chunk)));
  base = `http://127.0.0.1:${port}`;
  // Until its functions are ready (their `npm start` says where it serves).
  while (!/Serving the studio site on/.test(output)) {
    if (dev.exitCode !== null) throw new Error(`astro dev ended:\n${output}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}, 330_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    const ended = new Promise((done) => dev.once('exit', done));
    dev.kill('SIGTERM');
    await ended;
  }
  // The embedded Postgres of its `npm start` may still be writing its last WAL as the server
  // goes quiet; it removes `postmaster.pid` when it has stopped.
  const pid = join(scratch, 'db', 'postmaster.pid');
  for (let tries = 0; existsSync(pid) && tries < 150; tries++) {
    await new Promise((done) => setTimeout(done, 200));
  }
  await rm(scratch, { recursive: true, force: true, maxRetries: 5 });
});

test('a page answers, and a contact message is stored and answered 200 as under npm start', async () => {
  const page = await fetch(`${base}/contact`, { signal: AbortSignal.timeout(60_000) });
  expect(page.status, output).toBe(200);
  expect(await page.text()).toContain('<form');

  const response = await fetch(`${base}/api/send-email`, {
    method: 'POST',
    headers: { origin: base, 'content-type': 'application/json' },
    body: JSON.stringify(contactMessage(1)),
    signal: AbortSignal.timeout(60_000),
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ success: true });
}, 120_000);

test('stopping the dev server stops its functions', async () => {
  const url = /Serving the studio site on (\S+)/.exec(output)![1]!;
  const ended = new Promise((done) => dev.once('exit', done));
  dev.kill('SIGTERM');
  await ended;
  // Its `npm start` goes with it: until nothing answers where it served.
  for (;;) {
    const answer = await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    if (!answer) break;
    await answer.body?.cancel();
    await new Promise((done) => setTimeout(done, 200));
  }
}, 60_000);
