/**
 * The fetcher against a real HTTP server on 127.0.0.1 that answers the ways a calendar address
 * can: a calendar, a redirect, an error, a web page, a body too large, silence, a stall.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { feedUrl, fetchBusyFeed } from '../../src/server/booking/busy-fetch';

const CALENDAR = readFileSync(
  resolve(import.meta.dirname, '../fixtures/calendars/google.ics'),
  'utf8',
);
// As in a real secret address, the path is the secret: no message may ever contain it.
const SECRET = 'private-8c1f0e4b9d2a7f6e5c3b1a0d9e8f7a6b';

const routes: Record<string, (res: import('node:http').ServerResponse) => void> = {
  '/calendar.ics': (res) => {
    res.writeHead(200, { 'content-type': 'text/calendar; charset=UTF-8' });
    res.end(CALENDAR);
  },
  '/moved.ics': (res) => {
    res.writeHead(302, { location: `/${SECRET}/calendar.ics` });
    res.end();
  },
  '/error.ics': (res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('Internal Server Error');
  },
  '/gone.ics': (res) => {
    res.writeHead(404);
    res.end();
  },
  '/sign-in.ics': (res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html><html><head><title>Sign in</title></head><body>Sign in</body></html>');
  },
  '/endless.ics': (res) => {
    // No Content-Length: the cap must hold while reading.
    res.writeHead(200, { 'content-type': 'text/calendar' });
    const line = `${'X-FILLER:'.padEnd(74, 'x')}\r\n`.repeat(200);
    const write = () => {
      while (!res.destroyed && res.write(line));
      if (!res.destroyed) res.once('drain', write);
    };
    res.write('BEGIN:VCALENDAR\r\n');
    write();
  },
  '/declared-huge.ics': (res) => {
    res.writeHead(200, { 'content-type': 'text/calendar', 'content-length': String(50_000_000) });
    res.write('BEGIN:VCALENDAR\r\n');
  },
  '/silent.ics': () => {},
  '/stalls.ics': (res) => {
    res.writeHead(200, { 'content-type': 'text/calendar' });
    res.write('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n');
  },
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.on('error', () => {}); // the fetcher hangs up on purpose in some cases
    const route = routes[(req.url ?? '').replace(`/${SECRET}`, '')];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${SECRET}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe('fetching the calendar from its secret address', () => {
  test('a calendar comes back as its text', async () => {
    expect(await fetchBusyFeed(`${base}/calendar.ics`)).toEqual({ ok: true, text: CALENDAR });
  });

  test('a redirect is followed to the calendar', async () => {
    expect(await fetchBusyFeed(`${base}/moved.ics`)).toEqual({ ok: true, text: CALENDAR });
  });

  test('an HTTP error is a failure that names the status', async () => {
    const result = await fetchBusyFeed(`${base}/error.ics`);

    expect(result).toEqual({
      ok: false,
      reason: 'status',
      status: 500,
      message: 'The calendar address answered HTTP 500.',
    });
    expect(await fetchBusyFeed(`${base}/gone.ics`)).toMatchObject({
      reason: 'status',
      status: 404,
    });
  });

  test('a web page instead of a calendar is a failure, not an empty calendar', async () => {
    expect(await fetchBusyFeed(`${base}/sign-in.ics`)).toMatchObject({
      ok: false,
      reason: 'not-calendar',
    });
  });

  test('a body growing past the cap is cut off as too large', async () => {
    expect(await fetchBusyFeed(`${base}/endless.ics`, { maxBytes: 64 * 1024 })).toEqual({
      ok: false,
      reason: 'too-large',
      message: 'The calendar is larger than 65,536 bytes.',
    });
  });

  test('a declared length past the cap is refused before waiting for the body', async () => {
    const result = await fetchBusyFeed(`${base}/declared-huge.ics`, {
      maxBytes: 1024,
      timeoutMs: 60_000,
    });

    expect(result).toMatchObject({ ok: false, reason: 'too-large' });
  });

  test('a server that never answers times out', async () => {
    expect(await fetchBusyFeed(`${base}/silent.ics`, { timeoutMs: 200 })).toEqual({
      ok: false,
      reason: 'timeout',
      message: 'The calendar address did not answer within 200 ms.',
    });
  });

  test('a server that stalls in the middle of the body times out too', async () => {
    expect(await fetchBusyFeed(`${base}/stalls.ics`, { timeoutMs: 200 })).toMatchObject({
      ok: false,
      reason: 'timeout',
    });
  });

  test('a server nobody listens on is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));

    expect(await fetchBusyFeed(`http://127.0.0.1:${port}/${SECRET}/calendar.ics`)).toEqual({
      ok: false,
      reason: 'unreachable',
      message: 'The calendar address could not be reached (ECONNREFUSED).',
    });
  });

  test('no failure message contains the secret address', async () => {
    const failures = await Promise.all(
      ['error', 'sign-in', 'endless', 'silent'].map((name) =>
        fetchBusyFeed(`${base}/${name}.ics`, { timeoutMs: 200, maxBytes: 1024 }),
      ),
    );

    for (const failure of failures) {
      expect(failure.ok).toBe(false);
      expect(JSON.stringify(failure)).not.toContain(SECRET);
      expect(JSON.stringify(failure)).not.toContain('127.0.0.1');
    }
  });
});

describe('the calendar address', () => {
  test('webcal:// (as iCloud gives it) is fetched over https://', () => {
    expect(feedUrl('webcal://p52-caldav.icloud.com/published/2/MTIzNDU2')?.href).toBe(
      'https://p52-caldav.icloud.com/published/2/MTIzNDU2',
    );
  });

  test('an address that is not a web address is refused before anything is fetched', async () => {
    for (const address of ['not an address', 'ftp://example.org/cal.ics', 'file:///etc/passwd']) {
      expect(await fetchBusyFeed(address)).toMatchObject({ ok: false, reason: 'address' });
    }
  });
});
