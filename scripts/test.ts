/**
 * `npm test`: type checks, lint and format, the build, unit, function, bundle and server tests
 * (on a throwaway PostgreSQL server, see scripts/postgres.ts), then the browser tests against the
 * built site (Chromium, then Firefox ESR and WebKitGTK). Stops at the first failing step. The
 * site is built before the bundles are made, as on Netlify: a function ships built pages.
 *
 * `node scripts/test.ts <part> [args]` runs one part alone, with what it needs found (or
 * installed) first: `unit`, `functions`, `bundles`, `server`, `e2e` and `engines` (the last
 * three build the site first), and `money` (the money rules' model-based test, 20,000 sequences
 * unless MONEY_MODEL_RUNS says otherwise). These are `npm run test:<part>`; further arguments go to the part's
 * runner, e.g. `npm run test:e2e -- tests/e2e/contact.spec.ts`.
 */
import { spawnSync } from 'node:child_process';
import { ensureChromium } from './chromium.ts';
import { ensureEngines } from './engines.ts';
import { ensurePostgres } from './postgres.ts';

type Step = [name: string, command: string, args: string[]];
type Need = 'postgres' | 'chromium' | 'engines' | 'build';

const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
const bin = (name: string) => `node_modules/.bin/${name}`;

// The project's own scripts (check, lint, format:check), run by the npm that runs this one.
const npmCli = process.env.npm_execpath;
const npmRun = (script: string): [string, string[]] =>
  npmCli ? [process.execPath, [npmCli, 'run', '-s', script]] : ['npm', ['run', '-s', script]];

const vitest = (...projects: string[]): [string, string[]] => [
  bin('vitest'),
  ['run', ...projects.flatMap((project) => ['--project', project])],
];

const PARTS: Record<string, { step: Step; needs: Need[] }> = {
  unit: { step: ['unit tests', ...vitest('unit')], needs: [] },
  functions: {
    step: ['function tests', ...vitest('functions', 'functions:serverless', 'functions:embedded')],
    needs: ['postgres'],
  },
  // A bundle carries built pages (included_files), so the site is built first, as on Netlify.
  bundles: { step: ['bundle tests', ...vitest('bundles')], needs: ['postgres', 'build'] },
  server: { step: ['npm start tests', ...vitest('server')], needs: ['postgres'] },
  e2e: {
    step: ['browser tests (Chromium)', bin('playwright'), ['test']],
    needs: ['chromium', 'build'],
  },
  // The money rules' model-based test alone, for 20,000 random sequences (npm test runs 2,000).
  money: {
    step: ['the money rules, model-based', ...vitest('functions')],
    needs: ['postgres'],
  },
  // The same behaviours in Gecko (Firefox ESR) and WebKit (WebKitGTK), on the same build.
  engines: {
    step: [
      'cross-engine browser tests (Firefox ESR, WebKitGTK)',
      bin('vitest'),
      ['run', '--config', 'vitest.engines.config.ts'],
    ],
    needs: ['engines', 'build'],
  },
};

const BUILD: Step = ['build', bin('astro'), ['build']];

function plan(argv: string[]): { steps: Step[]; needs: Set<Need> } {
  const [name, ...rest] = argv;
  if (name === undefined) {
    return {
      steps: [
        ['type check', ...npmRun('check')],
        ['lint', ...npmRun('lint')],
        ['format', ...npmRun('format:check')],
        BUILD,
        // Every vitest project in one run: unit, functions, bundles, then the server's own.
        ['unit, function, bundle and server tests', bin('vitest'), ['run']],
        PARTS.e2e!.step,
        PARTS.engines!.step,
      ],
      needs: new Set(['postgres', 'chromium', 'engines']),
    };
  }
  const part = PARTS[name];
  if (!part) {
    console.error(
      `Usage: node scripts/test.ts [<part> [args for its runner]], a part being one of ${Object.keys(PARTS).join(', ')}`,
    );
    process.exit(2);
  }
  const extra = rest[0] === '--' ? rest.slice(1) : rest;
  if (name === 'money') {
    env.MONEY_MODEL_RUNS ??= '20000';
    extra.unshift('tests/functions/money-model.test.ts');
  }
  const [title, command, args] = part.step;
  const step: Step = [title, command, [...args, ...extra]];
  return {
    steps: part.needs.includes('build') ? [BUILD, step] : [step],
    needs: new Set(part.needs),
  };
}

const { steps, needs } = plan(process.argv.slice(2));
if (needs.has('postgres')) {
  try {
    env.POSTGRES_BIN = ensurePostgres().bin;
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
if (needs.has('chromium')) env.CHROMIUM_PATH = ensureChromium();
if (needs.has('engines')) ensureEngines();
for (const [name, command, args] of steps) {
  console.log(`\n▶ ${name}: ${[command, ...args].join(' ')}`);
  const run = spawnSync(command, args, { stdio: 'inherit', env });
  if (run.status !== 0) {
    console.error(`\n✘ ${name} failed`);
    process.exit(run.status ?? 1);
  }
}
console.log(`\n✔ passed: ${steps.map(([name]) => name).join(', ')}`);
