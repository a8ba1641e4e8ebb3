/**
 * Starts what every engine test shares, once per run, on free ports from ENGINES_PORT (9300) up:
 *
 * - the site as the Chromium tests serve it: `node scripts/serve.ts --no-build` on the built
 *   `dist/`, its mail going to the SMTP server the mail tests start on the port given here;
 * - for WebKit, `WebKitWebDriver` under `xvfb-run` (MiniBrowser needs an X display), with a
 *   GTK style sheet that shrinks MiniBrowser's toolbar: without it the window cannot be made
 *   narrower than 447 px, and a phone's 375 px viewport could not be had.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { findEngines } from '../../scripts/engines.ts';
import { selectedEngines } from './engines.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    siteUrl: string;
    smtpPort: number;
    webkitDriverUrl: string;
    /** Where the proxy of each test file may listen (a free port, found here). */
    proxyPort: number;
  }
}

const ROOT = resolve(import.meta.dirname, '../..');
const FIRST_PORT = Number(process.env.ENGINES_PORT ?? 9300);
const LAST_PORT = 9399;

const taken = new Set<number>();
async function freePort(): Promise<number> {
  for (let port = FIRST_PORT; port <= LAST_PORT; port++) {
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((done) => {
      const probe = createServer();
      probe.once('error', () => done(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  throw new Error(`No free port between ${FIRST_PORT} and ${LAST_PORT}`);
}

/** Polls `url` until it answers (any status), or fails with what the process printed. */
async function waitForHttp(url: string, child: ChildProcess, output: () => string, ms: number) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`${url}: the process exited (${child.exitCode}):\n${output()}`);
    }
    const ok = await fetch(url).then(
      async (response) => (await response.arrayBuffer(), true),
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${ms / 1000} s:\n${output()}`);
}

function start(command: string, args: string[], env: NodeJS.ProcessEnv) {
  let output = '';
  // Its own process group, so that stopping it also stops what it started (Xvfb, MiniBrowser).
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: 'pipe' });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (process.env.ENGINES_DEBUG) process.stderr.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

function stop(child: ChildProcess | undefined) {
  if (!child?.pid || child.exitCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      resolve();
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

/** GTK style for MiniBrowser's own widgets (not the page): as small as they can be. */
const GTK_CSS = `* { min-width: 0; min-height: 0; margin: 0; padding: 0; border-width: 0; font-size: 1px; -gtk-icon-transform: scale(0.1); }\n`;

export default async function setup(project: TestProject) {
  if (!existsSync(join(ROOT, 'dist/index.html'))) {
    throw new Error(
      'No built site in dist/: run `npm run build` first (npm run test:engines does).',
    );
  }
  const sitePort = await freePort();
  const smtpPort = await freePort();
  const proxyPort = await freePort();
  const children: ChildProcess[] = [];
  // However this process ends, what it started goes with it.
  process.once('exit', () => {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  const cleanups: (() => void)[] = [];
  const teardown = async () => {
    await Promise.all(children.map(stop));
    for (const cleanup of cleanups) cleanup();
  };

  try {
    const site = start(process.execPath, ['scripts/serve.ts', '--no-build'], {
      ...process.env,
      PORT: String(sitePort),
      HOST: '127.0.0.1',
      // The test SMTP server offers STARTTLS with a certificate of its own (tests/fixtures/smtp.ts).
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}/?tls.rejectUnauthorized=false`,
      // The browsers visit the proxy in front (tests/engines/proxy.ts): that is the site's address.
      SITE_URL: `http://127.0.0.1:${proxyPort}`,
      CONTACT_TO: 'studio-inbox@example.test',
      // The local database outlives a run; the limits have their own function tests.
      CONTACT_RATE_LIMIT: '10000/1m',
      WAIVER_RATE_LIMIT: '10000/1m',
      WAIVER_COPY_LIMIT: '10000/1h',
      OUTBOX_INTERVAL_MS: '2000',
      OUTBOX_BASE_DELAY_MS: '1000',
      ASTRO_TELEMETRY_DISABLED: '1',
    });
    children.push(site.child);
    const siteUrl = `http://127.0.0.1:${sitePort}`;

    let webkitDriverUrl = '';
    if (selectedEngines().includes('webkit')) {
      const { webkitDriver, xvfbRun } = findEngines();
      if (!webkitDriver || !xvfbRun) {
        throw new Error('WebKitWebDriver or xvfb-run is missing: run `node scripts/engines.ts`.');
      }
      const config = mkdtempSync(join(tmpdir(), 'engines-gtk-'));
      cleanups.push(() => rmSync(config, { recursive: true, force: true }));
      mkdirSync(join(config, 'gtk-3.0'));
      writeFileSync(join(config, 'gtk-3.0', 'gtk.css'), GTK_CSS);
      const driverPort = await freePort();
      // A screen as tall as a long page at phone width, for whole-page screenshots.
      const driver = start(
        xvfbRun,
        [
          '-a',
          '-s',
          '-screen 0 1920x16384x24 -nolisten tcp',
          webkitDriver,
          `--port=${driverPort}`,
          '--host=127.0.0.1',
        ],
        { ...process.env, XDG_CONFIG_HOME: config },
      );
      children.push(driver.child);
      webkitDriverUrl = `http://127.0.0.1:${driverPort}`;
      await waitForHttp(`${webkitDriverUrl}/status`, driver.child, driver.output, 30_000);
    }

    // Its first start bundles the functions: minutes on a machine whose cores are busy.
    await waitForHttp(`${siteUrl}/`, site.child, site.output, 600_000);
    project.provide('siteUrl', siteUrl);
    project.provide('smtpPort', smtpPort);
    project.provide('proxyPort', proxyPort);
    project.provide('webkitDriverUrl', webkitDriverUrl);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
