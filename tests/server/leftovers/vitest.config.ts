import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Server tests that fail on purpose, run by tests/server/leftovers.test.ts in a runner of their
 * own (never by `npm test` itself): they start servers as the server tests do, with the same
 * setup, and fail with them running.
 */
export default defineConfig({
  root: resolve(import.meta.dirname, '../../..'),
  test: {
    include: ['tests/server/leftovers/*.fixture.ts'],
    environment: 'node',
    setupFiles: 'tests/server/setup.ts',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
