/**
 * `npm test`: type checks, lint and format, unit, function and bundle tests (on a throwaway
 * PostgreSQL server, see scripts/postgres.ts), then the browser tests against the built site
 * (Chromium, then Firefox ESR and WebKitGTK). Stops at the first failing step.
 */
import { spawnSync } from 'node:child_process';
import { ensureChromium } from './chromium.ts';
import { ensureEngines } from './engines.ts';
import { ensurePostgres } from './postgres.ts';

const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
const bin = (name: string) => `node_modules/.bin/${name}`;

// The project's own scripts (check, lint, format:check), run by the npm that runs this one.
const npmCli = process.env.npm_execpath;
const npmRun = (script: string): [string, string[]] =>
  npmCli ? [process.execPath, [npmCli, 'run', '-s', script]] : ['npm', ['run', '-s', script]];

const steps: [string, string, string[]][] = [
  ['type check', ...npmRun('check')],
  ['lint', ...npmRun('lint')],
  ['format', ...npmRun('format:check')],
  ['unit, function and bundle tests', bin('vitest'), ['run']],
  ['build', bin('astro'), ['build']],
  ['browser tests (Chromium)', bin('playwright'), ['test']],
  // The same behaviours in Gecko (Firefox ESR) and WebKit (WebKitGTK), on the same build.
  [
    'cross-engine browser tests (Firefox ESR, WebKitGTK)',
    bin('vitest'),
    ['run', '--config', 'vitest.engines.config.ts'],
  ],
];

try {
  env.POSTGRES_BIN = ensurePostgres().bin;
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
env.CHROMIUM_PATH = ensureChromium();
ensureEngines();
for (const [name, command, args] of steps) {
  console.log(`\n▶ ${name}: ${[command, ...args].join(' ')}`);
  const run = spawnSync(command, args, { stdio: 'inherit', env });
  if (run.status !== 0) {
    console.error(`\n✘ ${name} failed`);
    process.exit(run.status ?? 1);
  }
}
console.log('\n✔ every check passed');
