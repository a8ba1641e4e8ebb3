/**
 * `npm start`: builds the site (`astro build`; `--no-build` serves the `dist/` already there),
 * then serves it with its functions on HOST:PORT (127.0.0.1:8888) — see scripts/server/index.ts
 * and docs/running.md ("What npm start does", "Self-hosting"). SIGINT or SIGTERM stops it in about a second:
 * requests in flight and mail being sent are given up to SHUTDOWN_TIMEOUT_MS (5 s) to finish.
 */
import { spawnSync } from 'node:child_process';
import { REQUIRED_WHEN_DEPLOYED } from '../src/server/platform/settings.ts';
import { startServer } from './server/index.ts';

if (!process.argv.includes('--no-build')) {
  const build = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

let server;
try {
  server = await startServer();
} catch (error) {
  console.error(`npm start could not start: ${(error as Error)?.message ?? error}`);
  process.exit(1);
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
console.log(`Serving the studio site on ${server.url}`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  // Closing the database ends the connections the functions' own pools still hold; pg reports
  // each as an 'error' of its pool, which a pool without a listener throws. Expected now: carry on.
  process.on('uncaughtException', (error) => {
    if (!/Connection terminated|ECONNRESET/.test(String(error?.message))) {
      console.error(`While stopping: ${error?.name}`);
    }
  });
  await server!.close();
  process.exit(process.exitCode ?? 0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
