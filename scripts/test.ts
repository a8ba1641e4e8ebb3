/**
 * `npm test`: type checks, lint and format, unit and function tests, then the browser tests
 * against the built site (Chromium, then Firefox ESR and WebKitGTK). Stops at the first failing
 * step.
 */
import { spawnSync } from 'node:child_process';
import { ensureChromium } from './chromium.ts';
import { ensureEngines } from './engines.ts';

const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
const bin = (name: string) => `node_modules/.bin/${name}`;

const steps: [string, string, string[]][] = [
  ['type check', bin('astro'), ['check']],
  ['lint', bin('eslint'), ['.']],
  ['format', bin('prettier'), ['--check', '.']],
  ['unit and function tests', bin('vitest'), ['run']],
  ['build', bin('astro'), ['build']],
  ['browser tests', bin('playwright'), ['test']],
];

// Issue 14: the same behaviours in Gecko (Firefox ESR) and WebKit (WebKitGTK), after the
// Chromium tests and on the same build. A separate step, so it can be moved or dropped alone.
steps.push([
  'cross-engine browser tests (Firefox ESR, WebKitGTK)',
  bin('vitest'),
  ['run', '--config', 'vitest.engines.config.ts'],
]);

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
