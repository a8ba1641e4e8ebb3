/**
 * The server's mechanics on a tiny fixture site (tests/server/fixture): Netlify's routing of
 * static files, `_headers`, `_redirects` and functions, the function's Request and Context, and
 * how a function's answer (or failure) reaches the visitor.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fixtureProject, rawExchange, startStudio, type Studio } from './harness.ts';

let studio: Studio;
let fixture: Awaited<ReturnType<typeof fixtureProject>>;

beforeAll(async () => {
  fixture = await fixtureProject();
  studio = await startStudio({ cwd: fixture.root });
});
afterAll(async () => {
  await studio?.stop();
  await fixture?.remove();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${studio.url}${path}`, { headers, redirect: 'manual' });

describe('static files', () => {
  test('/about is about.html, with the _headers rules and Netlify’s default Cache-Control', async () => {
    const response = await get('/about');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('fixture page: about');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-fixture')).toBe('every-path');
    expect(response.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
  });

  test('a _headers rule for a folder sets its own Cache-Control', async () => {
    const response = await get('/assets/app.js');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  test('/ and /docs/ are their folder’s index.html; /docs gets the slash added', async () => {
    expect(await (await get('/')).text()).toContain('fixture page: index');
    expect(await (await get('/docs/')).text()).toContain('fixture page: docs');
    const bare = await get('/docs');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/docs/');
    const slashed = await get('/about/');
    expect(slashed.status).toBe(301);
    expect(slashed.headers.get('location')).toBe('/about');
  });

  test('an unknown path gets 404.html with status 404 and the headers of every path', async () => {
    const response = await get('/no/such/page');
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('fixture page: 404');
    expect(response.headers.get('x-fixture')).toBe('every-path');
    expect(response.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
  });

  test('HEAD has the headers of GET and no body; an ETag gets 304', async () => {
    const head = await fetch(`${studio.url}/about`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
    const etag = head.headers.get('etag')!;
    const again = await get('/about', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-fixture')).toBe('every-path');
  });

  test('text is sent compressed to a client that takes brotli or gzip', async () => {
    const raw = await rawExchange(
      studio.port,
      'GET /assets/app.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n',
    );
    expect(raw.text).toMatch(/content-encoding: gzip/i);
    expect(raw.text).toMatch(/vary: Accept-Encoding/i);
  });

  test('nothing outside the published folder is served, however the path is written', async () => {
    for (const path of [
      '/../outside.txt',
      '/%2e%2e/outside.txt',
      '/%2e%2e%2foutside.txt',
      '/..%5coutside.txt',
      '/assets/..%2f..%2foutside.txt',
      '/%252e%252e/outside.txt',
      '//outside.txt',
    ]) {
      const raw = await rawExchange(
        studio.port,
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(raw.text, path).not.toContain('secret outside');
      expect(raw.text.slice(0, 12), path).toMatch(/^HTTP\/1\.1 (400|404)/);
    }
  });

  test('_headers and _redirects themselves are not served', async () => {
    expect((await get('/_headers')).status).toBe(404);
    expect((await get('/_redirects')).status).toBe(404);
  });

  test('a POST to a static page is refused with 405', async () => {
    const response = await fetch(`${studio.url}/about`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('redirect rules', () => {
  test('a 301 and a splat 302 redirect, with the query kept', async () => {
    const moved = await get('/old-about');
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('/about');
    const splat = await get('/blog/2024/spring?x=1');
    expect(splat.status).toBe(302);
    expect(splat.headers.get('location')).toBe('/news/2024/spring?x=1');
    const toml = await get('/from-toml');
    expect(toml.status).toBe(302);
    expect(toml.headers.get('location')).toBe('/about');
  });

  test('a 200 rewrite serves the target; a 404 rule serves its page with 404', async () => {
    const rewritten = await get('/rewritten');
    expect(rewritten.status).toBe(200);
    expect(await rewritten.text()).toContain('fixture page: about');
    const gone = await get('/gone');
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain('fixture page: 404');
  });

  test('an existing file shadows a rule unless it is forced', async () => {
    const shadowed = await get('/shadowed');
    expect(shadowed.status).toBe(200);
    expect(await shadowed.text()).toContain('fixture page: shadowed');
    const forced = await get('/forced');
    expect(forced.status).toBe(301);
  });

  test('a rewrite to a function path runs the function', async () => {
    const response = await get('/api/v1/anything');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { url: string };
    expect(new URL(body.url).pathname).toBe('/api/v1/anything');
  });
});

describe('functions', () => {
  test('a function answers at its path with the Request and Context Netlify gives it', async () => {
    const response = await fetch(`${studio.url}/echo/abc?q=1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-anything; v=1',
        'x-forwarded-for': '203.0.113.9',
        'x-nf-client-connection-ip': '198.51.100.7',
      },
      body: new Uint8Array([0xff, 0xfe, 0x00, 0x41]),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-nf-request-id')).toBeTruthy();
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      method: 'POST',
      ip: '127.0.0.1',
      // What the client claims is replaced by what the server saw.
      forwardedFor: '127.0.0.1',
      clientIpHeader: '127.0.0.1',
      contentType: 'application/x-anything; v=1',
      params: { rest: 'abc' },
      bytes: 4,
      first: [0xff, 0xfe, 0x00, 0x41],
      netlifyGlobal: true,
    });
    expect(body.url).toBe(`${studio.url}/echo/abc?q=1`);
    expect(body.requestId).toBe(response.headers.get('x-nf-request-id'));
  });

  test('a function with no path answers at /.netlify/functions/<name>; others do not', async () => {
    const plain = await get('/.netlify/functions/plain');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-plain')).toBe('yes');
    expect((await get('/.netlify/functions/echo')).status).toBe(404);
    expect((await get('/.netlify/functions/tick')).status).toBe(404);
  });

  test('every Set-Cookie a function sets reaches the client, context.cookies included', async () => {
    const response = await get('/echo?do=cookies');
    expect(response.headers.getSetCookie().sort()).toEqual([
      'first=1; Path=/; HttpOnly',
      'second=2; Path=/',
      'third=3; Path=/',
    ]);
  });

  test('a streamed answer streams', async () => {
    const response = await get('/echo?do=stream');
    expect(await response.text()).toBe('chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n');
  });

  test('a function that throws gets the visitor a JSON 500 without its message', async () => {
    const response = await get('/echo?do=throw', { 'x-secret': 'health data' });
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ success: false });
    expect(text).not.toMatch(/health data|TypeError|at /);
    await studio.said('echo: the function threw TypeError');
    expect(studio.output()).not.toContain('health data');
  });

  test('Expect: 100-continue with a declared size over the cap gets 413 before any byte is sent', async () => {
    const status = await new Promise<number>((done, fail) => {
      const req = request(`${studio.url}/echo`, {
        method: 'POST',
        headers: { expect: '100-continue', 'content-length': String(50 * 1024 * 1024) },
      });
      req.on('continue', () => fail(new Error('the server asked for the body')));
      req.on('response', (res) => {
        res.resume();
        done(res.statusCode!);
        req.destroy();
      });
      req.on('error', () => undefined);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });
});

describe('behind a proxy and on shutdown', () => {
  test('with TRUST_PROXY=1 the client is the last address of X-Forwarded-For, the scheme X-Forwarded-Proto', async () => {
    const proxied = await startStudio({ cwd: fixture.root, env: { TRUST_PROXY: '1' } });
    try {
      const response = await fetch(`${proxied.url}/echo`, {
        headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.5', 'x-forwarded-proto': 'https' },
      });
      const body = (await response.json()) as { ip: string; url: string };
      expect(body.ip).toBe('203.0.113.5');
      expect(body.url.startsWith('https://')).toBe(true);
    } finally {
      await proxied.stop();
    }
  });

  test('SIGTERM waits for waitUntil work, then exits 0 without waiting out SHUTDOWN_TIMEOUT_MS', async () => {
    const marker = join(tmpdir(), `studio-wait-${process.pid}-${Date.now()}`);
    // A deadline it could never reach in this test (the harness kills it 20 s after the signal,
    // and its exit code is then null): an exit 0 is the server finding nothing left to wait for.
    const own = await startStudio({ cwd: fixture.root, env: { SHUTDOWN_TIMEOUT_MS: '600000' } });
    const response = await fetch(`${own.url}/echo?do=wait`, { headers: { 'x-marker': marker } });
    expect(response.status).toBe(200);
    const { code } = await own.stop('SIGTERM');
    expect(code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    await rm(marker, { force: true });
  });

  test('a function that never answers gets the visitor a JSON 504 after FUNCTION_TIMEOUT_MS', async () => {
    const own = await startStudio({ cwd: fixture.root, env: { FUNCTION_TIMEOUT_MS: '1500' } });
    try {
      const response = await fetch(`${own.url}/echo?do=hang`);
      expect(response.status).toBe(504);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      // The server's own limit answered, and says so.
      await own.said('echo: no answer within 1500 ms');
    } finally {
      await own.stop();
    }
  });
});
