/**
 * Every answer of every function carries the security headers, whatever the request: a method
 * the path does not take (405), a path the function does not know (404), a cross-site post
 * (403), the database down (503). Each function file is walked at each of its paths, and each
 * page rendered on demand at its own, so a new function, page or path is covered without being
 * named here.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { useFunctionEnv } from '../fixtures/function-env';
import { ON_DEMAND_PAGES, renderPage } from '../fixtures/on-demand';

const env = useFunctionEnv();

const FUNCTIONS = resolve(import.meta.dirname, '../../functions');
const BASE = 'http://127.0.0.1:8888';

type Handler = (req: Request, context?: unknown) => Promise<Response>;

interface Endpoint {
  file: string;
  path: string;
  handler: Handler;
  /** A page rendered on demand: a path beside it is the 404 page's, not the page's. */
  page?: boolean;
}

const endpoints: Endpoint[] = [];
for (const file of readdirSync(FUNCTIONS)
  .filter((name) => name.endsWith('.ts'))
  .sort()) {
  const module = (await import(pathToFileURL(join(FUNCTIONS, file)).href)) as {
    default: Handler;
    config?: { path?: string | string[] };
  };
  for (const path of [module.config?.path ?? []].flat()) {
    // A `:name` part filled with something of the right shape that opens nothing.
    const filled = path.replace(/:(\w+)/g, (_, name: string) =>
      name === 'id' ? '00000000-0000-4000-8000-000000000000' : 'x'.repeat(43),
    );
    endpoints.push({ file, path: filled, handler: module.default });
  }
}

for (const [path, file] of Object.entries(ON_DEMAND_PAGES)) {
  endpoints.push({ file, path, handler: (req) => renderPage(req), page: true });
}

beforeAll(() => {
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
});
afterAll(() => {
  delete process.env.PAGES_DIR;
});

/** The headers no answer goes without (their values may differ: a page has its own policy). */
function expectSecurityHeaders(response: Response, what: string) {
  const headers = response.headers;
  const missing = [
    'content-security-policy',
    'strict-transport-security',
    'x-content-type-options',
    'x-frame-options',
    'referrer-policy',
  ].filter((name) => !headers.has(name));
  expect(missing, `${what} (${response.status}) lacks headers`).toEqual([]);
  expect(headers.get('content-security-policy'), what).toMatch(/frame-ancestors 'none'/);
  expect(headers.get('x-content-type-options'), what).toBe('nosniff');
}

test('the walk finds every function with a path', () => {
  expect(endpoints.map((e) => e.path)).toEqual(
    expect.arrayContaining([
      '/consultation/manage',
      '/notify/confirm',
      '/notify/unsubscribe',
      '/consultation',
      '/api/send-email',
    ]),
  );
});

describe.each(endpoints)('$path ($file)', ({ path, handler, page }) => {
  test.each(['PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    '%s is refused with the security headers',
    async (method) => {
      const response = await handler(new Request(`${BASE}${path}`, { method }));
      expect(response.status).toBeGreaterThanOrEqual(400);
      expectSecurityHeaders(response, `${method} ${path}`);
    },
  );

  test('a cross-site POST and a GET, with the database up and down, carry them too', async () => {
    const requests = () => [
      new Request(`${BASE}${path}`),
      new Request(`${BASE}${path}`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
        body: '{}',
      }),
      new Request(`${BASE}${path}`, {
        method: 'POST',
        headers: { origin: BASE, 'content-type': 'application/json' },
        body: '{}',
      }),
    ];
    for (const req of requests()) {
      expectSecurityHeaders(await handler(req), `${req.method} ${path}`);
    }
    await env.whileDown(async () => {
      for (const req of requests()) {
        expectSecurityHeaders(await handler(req), `${req.method} ${path}, database down`);
      }
    });
  });

  test.skipIf(page)(
    'a path beside it that the function does not know carries them too',
    async () => {
      const response = await handler(new Request(`${BASE}${path}/nothing-here`));
      expectSecurityHeaders(response, `GET ${path}/nothing-here`);
    },
  );
});
