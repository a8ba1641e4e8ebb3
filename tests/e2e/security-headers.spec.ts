import { expect, test, type APIRequestContext, type APIResponse } from '@playwright/test';
import { builtPages } from './pages';

/** A policy as directive name -> sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name.toLowerCase(), sources]),
  );
}

/** The headers the MDN HTTP Observatory grades, each held to what an A+ needs. */
function expectSecurityHeaders(response: APIResponse) {
  const headers = response.headers();
  const csp = headers['content-security-policy'];
  expect(csp, 'Content-Security-Policy').toBeTruthy();
  const policy = directives(csp);
  const scripts = policy.get('script-src') ?? policy.get('default-src');
  expect(scripts, 'script-src or default-src').toBeDefined();
  for (const unsafe of ["'unsafe-inline'", "'unsafe-eval'", '*', 'http:', 'https:', 'data:']) {
    expect(scripts).not.toContain(unsafe);
  }
  expect(policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.get('object-src') ?? policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.get('base-uri')).toEqual(["'none'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(headers['x-frame-options']).toBe('DENY');

  const hsts = /max-age=(\d+)/.exec(headers['strict-transport-security'] ?? '');
  expect(Number(hsts?.[1]), 'HSTS max-age of at least six months').toBeGreaterThanOrEqual(
    15_768_000,
  );
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect([
    'no-referrer',
    'same-origin',
    'strict-origin',
    'strict-origin-when-cross-origin',
  ]).toContain(headers['referrer-policy']);
  expect(headers['permissions-policy']).toMatch(/camera=\(\)/);
  expect(headers['permissions-policy']).toMatch(/microphone=\(\)/);
  expect(headers['permissions-policy']).toMatch(/geolocation=\(\)/);
}

/** Pages that answer 404 as asked here: an unknown path, and a booking's page without its token. */
const NOT_FOUND = new Set(['/no-such-page', '/consultation/manage', '/classes/manage']);

for (const path of builtPages()) {
  test(`${path} is served with a strict CSP, HSTS, nosniff, Referrer-Policy, Permissions-Policy and no framing`, async ({
    request,
  }) => {
    const response = await request.get(path);
    expect(response.status()).toBe(NOT_FOUND.has(path) ? 404 : 200);
    expectSecurityHeaders(response);
  });
}

test('every inline script of every page is allowed by a hash of the policy', async ({
  request,
}) => {
  const { createHash } = await import('node:crypto');
  for (const path of builtPages()) {
    const response = await request.get(path);
    const scripts = directives(response.headers()['content-security-policy']).get('script-src')!;
    for (const [, attributes, code] of (await response.text()).matchAll(
      /<script\b([^>]*)>([\s\S]*?)<\/script>/g,
    )) {
      if (/\bsrc=|application\/ld\+json/.test(attributes)) continue;
      const hash = createHash('sha256').update(code).digest('base64');
      expect(scripts, `${path}: ${code.slice(0, 60)}`).toContain(`'sha256-${hash}'`);
    }
  }
});

test('static files carry the headers too', async ({ request }) => {
  for (const path of ['/favicon.svg', '/robots.txt', '/sitemap-index.xml']) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    expectSecurityHeaders(response);
  }
});

for (const endpoint of ['/api/send-email', '/api/submit-waiver']) {
  test.describe(`the function at ${endpoint}`, () => {
    const answers: [
      string,
      (request: APIRequestContext, origin: string) => Promise<APIResponse>,
    ][] = [
      ['a GET', (request) => request.get(endpoint)],
      [
        'a cross-origin POST',
        (request) =>
          request.post(endpoint, { headers: { origin: 'https://evil.example' }, data: {} }),
      ],
      [
        'a same-origin POST with bad fields',
        (request, origin) => request.post(endpoint, { headers: { origin }, data: {} }),
      ],
    ];

    for (const [what, send] of answers) {
      test(`answers ${what} with JSON and the security headers`, async ({ request, baseURL }) => {
        const response = await send(request, new URL(baseURL!).origin);
        expect(response.status()).toBeGreaterThanOrEqual(400);
        expect(response.status()).toBeLessThan(500);
        expect(response.headers()['content-type']).toMatch(/application\/json/);
        expectSecurityHeaders(response);
      });
    }

    test('refuses a cross-origin POST with 403 but reads a same-origin one', async ({
      request,
      baseURL,
    }) => {
      const evil = await request.post(endpoint, {
        headers: { origin: 'https://evil.example' },
        data: {},
      });
      expect(evil.status()).toBe(403);
      const own = await request.post(endpoint, {
        headers: { origin: new URL(baseURL!).origin },
        data: {},
      });
      expect(own.status()).toBe(422);
    });
  });
}
