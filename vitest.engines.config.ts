import { defineConfig } from 'vitest/config';

/**
 * The cross-engine browser suite (tests/engines/): Firefox ESR and WebKitGTK against the built
 * site. Its own config, so `vitest run` (unit and function tests) never starts a browser.
 */
export default defineConfig({
  test: {
    name: 'engines',
    include: ['tests/engines/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['tests/engines/global-setup.ts'],
    // One file and one browser at a time: two CPUs are shared, and the files share one site,
    // one SMTP port and one proxy port.
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 90_000,
    // A test whose WebKit went away under it (MiniBrowser ended; tests/engines/browsers.ts names
    // it WEBKIT_GONE) runs once more in a new MiniBrowser; any other failure is a failure.
    retry: { count: 1, condition: /WebKit's MiniBrowser is gone/ },
    hookTimeout: 120_000,
    reporters: ['verbose'],
  },
});
