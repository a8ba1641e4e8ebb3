/**
 * `npm start` serving the real site (dist/) and its real functions, from their bundles.
 * Assertions are on status codes and content types, not on the forms' answer keys (which the
 * form refactor is unifying).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  contactMessage,
  ensureBuilt,
  postJson,
  rawExchange,
  startStudio,
  type Studio,
} from './harness.ts';

let studio: Studio;

beforeAll(async () => {
  ensureBuilt();
  studio = await startStudio();
});
afterAll(async () => {
  await studio?.stop();
});

describe('the pages', () => {
  test('every page answers 200 at its pretty URL with the security headers of _headers', async () => {
    for (const path of ['/', '/about', '/services', '/events', '/contact', '/waiver']) {
      const response = await fetch(`${studio.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy'), path).toContain("default-src 'none'");
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('cache-control'), path).toBe(
        'public, max-age=0, must-revalidate',
      );
      await response.arrayBuffer();
    }
  });

  test('hashed assets are immutable; robots.txt, the sitemap and the events feed have their types', async () => {
    const html = await (await fetch(`${studio.url}/contact`)).text();
    const asset = /\/_astro\/[^"']+\.js/.exec(html)?.[0];
    expect(asset).toBeTruthy();
    const script = await fetch(`${studio.url}${asset}`);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const robots = await fetch(`${studio.url}/robots.txt`);
    expect(robots.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const sitemap = await fetch(`${studio.url}/sitemap-index.xml`);
    expect(sitemap.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const feed = await fetch(`${studio.url}/events.ics`);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await feed.text()).toMatch(/^BEGIN:VCALENDAR\r\n/);
  });

  test('an unknown path gets the 404 page with status 404 and the security headers', async () => {
    const response = await fetch(`${studio.url}/no-such-page`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toMatch(/<html/i);
  });

  test('no file outside dist/ is served', async () => {
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/..%2fnetlify.toml']) {
      const raw = await rawExchange(
        studio.port,
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(raw.text, path).not.toContain('"devDependencies"');
      expect(raw.text, path).not.toContain('[functions]');
    }
  });
});

describe('the functions', () => {
  test('a contact message is answered 200 with JSON', async () => {
    const response = await postJson(studio.url, '/api/send-email', contactMessage(1));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('invalid UTF-8 in a JSON body reaches the function unchanged, which answers 400', async () => {
    const valid = JSON.stringify(contactMessage(2));
    const bytes = Buffer.concat([
      Buffer.from(valid.slice(0, 10)),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(valid.slice(10)),
    ]);
    const response = await postJson(studio.url, '/api/send-email', new Uint8Array(bytes));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('Content-Type "application/json ; charset=utf-8" reaches the function as sent', async () => {
    const response = await postJson(studio.url, '/api/send-email', contactMessage(3), {
      'content-type': 'application/json ; charset=utf-8',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('the scheduled mail retry and retention run are not reachable from outside', async () => {
    for (const name of ['retry-mail', 'retention']) {
      const response = await fetch(`${studio.url}/.netlify/functions/${name}`, { method: 'POST' });
      expect(response.status, name).toBe(404);
    }
    // npm start runs them itself: the retention run at its minute (tests/unit/daily-timer.test.ts).
    expect(studio.output()).not.toMatch(/retention is scheduled/);
  });
});

describe('stopping', () => {
  test('SIGTERM after form posts stops the server with exit code 0, nothing left to wait out', async () => {
    // A deadline it could never reach in this test (the harness kills it 20 s after the signal,
    // and its exit code is then null): an exit 0 is the server finding nothing left to wait for.
    const own = await startStudio({ env: { SHUTDOWN_TIMEOUT_MS: '600000' } });
    for (let i = 0; i < 3; i++) {
      const response = await postJson(own.url, '/api/send-email', contactMessage(10 + i));
      expect(response.status).toBe(200);
    }
    const { code } = await own.stop('SIGTERM');
    expect(code).toBe(0);
  });
});
