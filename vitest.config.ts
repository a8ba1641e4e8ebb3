import { availableParallelism } from 'node:os';
import { getViteConfig } from 'astro/config';
import { defineConfig } from 'vitest/config';

const POSTGRES = 'tests/fixtures/postgres-setup.ts';
const fn = (...names: string[]) => names.map((name) => `tests/functions/${name}.test.ts`);

// Function tests start servers, databases and (concurrency) other Node processes.
const functionTests = {
  environment: 'node' as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // A test file mostly waits (on PostgreSQL, SMTP, a child process): one worker per core, where
    // Vitest's default of one fewer ran every file one after another on a machine of two cores
    // (1,917 s of files in a 2,112 s run). Projects that must run alone say fileParallelism: false.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          // Some files make and remove copies of the project (tests/fixtures/project-copy.ts):
          // with a file per core at once, removing them took longer than Vitest's 10 s.
          hookTimeout: 120_000,
        },
      },
      // Every function test on a real PostgreSQL server through `pg`, each file on its own
      // database, so files run in parallel; with Astro's Vite setup, so that a test renders the
      // pages rendered on demand (tests/fixtures/on-demand.ts) in the test's own process.
      getViteConfig({
        test: {
          ...functionTests,
          name: 'functions',
          include: ['tests/functions/**/*.test.ts'],
          exclude: fn('db-session-lock'),
          globalSetup: [POSTGRES, 'tests/fixtures/content-sync.ts'],
          env: { NETLIFY_DB_DRIVER: 'server' },
        },
      }),
      // As on Netlify: `@neondatabase/serverless` over a WebSocket to the same server; with Astro's
      // Vite setup too, for the refusal pages the form posts without script land on.
      getViteConfig({
        test: {
          ...functionTests,
          name: 'functions:serverless',
          include: [
            ...fn(
              'send-email',
              'submit-waiver',
              'outbox',
              'contact-guards',
              'form-posts',
              'dead-connection',
            ),
            'tests/drivers/serverless.test.ts',
          ],
          globalSetup: POSTGRES,
          setupFiles: 'tests/fixtures/serverless-driver.ts',
          env: { NETLIFY_DB_DRIVER: 'serverless' },
        },
      }),
      {
        // What `npm start` uses by default: the embedded Postgres (PGlite) of Netlify's tooling.
        test: {
          ...functionTests,
          name: 'functions:embedded',
          include: fn('send-email', 'submit-waiver', 'db-session-lock', 'database'),
          env: { TEST_DATABASE: 'embedded', NETLIFY_DB_DRIVER: 'server' },
          // Each file loads its own copy of Postgres compiled to WebAssembly: one at a time.
          fileParallelism: false,
        },
      },
      {
        // Netlify's bundles of functions/, run from a folder outside the repository.
        test: {
          ...functionTests,
          name: 'bundles',
          include: ['tests/bundles/**/*.test.ts'],
          globalSetup: POSTGRES,
          testTimeout: 60_000,
          // Netlify's bundler makes 26 zips: minutes when the cores are busy.
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          environment: 'node',
          // Each file starts `npm start` in a child process and some measure its memory: one file
          // at a time, after the other projects. A first start bundles the functions, which takes
          // minutes while the cores are busy (tests/server/harness.ts waits up to 300 s for it).
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          setupFiles: 'tests/server/setup.ts',
          testTimeout: 120_000,
          hookTimeout: 330_000,
        },
      },
    ],
  },
});
