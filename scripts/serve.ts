/**
 * `npm start`: builds the site (`astro build`, skipped when nothing it is built from has changed;
 * `--no-build` serves the `dist/` already there), compiles the functions and starts the database
 * meanwhile, then serves the site with its functions on HOST:PORT (127.0.0.1:8888) — see
 * scripts/server/index.ts and docs/running.md ("What npm start does", "Self-hosting").
 *
 * SIGINT or SIGTERM stops it: while it starts, at once (a build under way is ended); once it
 * serves, in about a second, requests in flight and mail being sent given up to
 * SHUTDOWN_TIMEOUT_MS (5 s) to finish. It exits within that time and two seconds more whatever
 * the database or a function does. (A signal that comes again, as Ctrl-C reaches both npm and
 * this process, changes nothing.)
 */
import { REQUIRED_WHEN_DEPLOYED } from '../src/server/platform/settings.ts';
import { startServer, type StudioServer } from './server/index.ts';
import { readSettings, type Settings } from './server/settings.ts';

const began = performance.now();
let settings: Settings;
try {
  settings = readSettings();
} catch (error) {
  console.error(`npm start could not start: ${(error as Error)?.message ?? error}`);
  process.exit(1);
}

const starting = new AbortController();
let server: StudioServer | undefined;
let stopping = false;

function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  // Whatever the database or a function does, the process ends.
  setTimeout(() => {
    console.error('Still stopping after the shutdown time: exiting now');
    process.exit(process.exitCode ?? 1);
  }, settings.shutdownTimeoutMs + 2_000).unref();
  if (!server) {
    starting.abort();
    return;
  }
  // Closing the database ends the connections the functions' own pools still hold; pg reports
  // each as an 'error' of its pool, which a pool without a listener throws. Expected now: carry on.
  process.on('uncaughtException', (error) => {
    if (!/Connection terminated|ECONNRESET/.test(String(error?.message))) {
      console.error(`While stopping: ${error?.name}`);
    }
  });
  void server.close().then(() => process.exit(process.exitCode ?? 0));
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
// Started by `npm run dev` (scripts/server/dev.ts): it stops when the dev server ends.
if (process.send) process.on('disconnect', () => stop('The dev server ended'));

try {
  server = await startServer({
    settings,
    build: !process.argv.includes('--no-build'),
    signal: starting.signal,
  });
} catch (error) {
  if (starting.signal.aborted) process.exit(process.exitCode ?? 0);
  console.error(`npm start could not start: ${(error as Error)?.message ?? error}`);
  process.exit(1);
}
if (stopping) {
  // A signal came as the last step finished.
  await server.close();
  process.exit(process.exitCode ?? 0);
}
if (server.database.kind === 'embedded') {
  console.log(`Local database (one session at a time): ${server.database.url}`);
} else {
  console.log('Database: NETLIFY_DB_URL');
  // On its own database, this is the studio's real server (self-hosted): say what it lacks.
  for (const [name, what] of REQUIRED_WHEN_DEPLOYED) {
    if (!process.env[name]?.trim()) {
      console.warn(`Self-hosted without ${name} (${what}): the local default is used instead.`);
    }
  }
}
const seconds = ((performance.now() - began) / 1000).toFixed(1);
console.log(`Serving the studio site on ${server.url} (ready in ${seconds} s)`);
