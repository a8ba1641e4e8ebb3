/**
 * Bad clients cannot hurt other visitors: the probes of issue 11, against `npm start` serving the
 * real contact function. A normal contact message is answered while slow clients are still
 * sending (none of them answered yet) and after each probe, and the server's memory stays
 * bounded. Nothing here is timed: each limit is seen to fire (its 408 or 413).
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  contactMessage,
  ensureBuilt,
  rawExchange,
  sendContact,
  startStudio,
  type Studio,
} from './harness.ts';

let studio: Studio;

/** How often a slow client sends its next byte: well inside BODY_IDLE_TIMEOUT_MS. */
const DRIP_MS = 500;

beforeAll(async () => {
  ensureBuilt();
  // A slow sender is cut off after 20 s, one that pauses after 5 s of silence: margins wide
  // enough that a normal message, on a busy machine, is answered long before either.
  studio = await startStudio({
    env: { REQUEST_TIMEOUT_MS: '20000', BODY_IDLE_TIMEOUT_MS: '5000' },
  });
});
afterAll(async () => {
  await studio?.stop();
});

async function expectNormalMessageAnswered() {
  const answer = await sendContact(studio.url, Math.floor(Math.random() * 1e6));
  expect(answer.status).toBe(200);
  expect(answer.type).toMatch(/^application\/json/);
}

/** Resolves once `ready()` holds, checked at every drip. */
function when(ready: () => boolean): Promise<void> {
  return new Promise((done) => {
    const check = setInterval(() => {
      if (!ready()) return;
      clearInterval(check);
      done();
    }, DRIP_MS / 5);
  });
}

function contactHead(length: number | 'chunked', path = '/api/send-email') {
  return (
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${studio.port}\r\n` +
    `Origin: ${studio.url}\r\nContent-Type: application/json\r\n` +
    (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
    '\r\n'
  );
}

function openSocket(): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect(studio.port, '127.0.0.1', () => done(socket));
    socket.once('error', fail);
  });
}

/**
 * Clients that post `body` to `paths` (one each) at two bytes a second, from now until `stop()`;
 * `received[i]` is what the i-th has been answered so far.
 */
async function slowSenders(paths: string[], body: string) {
  const sockets = await Promise.all(paths.map(openSocket));
  const received = sockets.map(() => '');
  sockets.forEach((socket, i) => {
    socket.on('data', (chunk) => (received[i] += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.write(contactHead(body.length, paths[i]));
  });
  let sent = 0;
  const drip = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write(body[sent]);
    sent += 1;
  }, DRIP_MS);
  return {
    sockets,
    received,
    sent: () => sent,
    stop() {
      clearInterval(drip);
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('slow and vanishing clients', () => {
  test('with 20 clients sending two bytes a second, a message is answered while they are still sending, and after they close', async () => {
    const body = JSON.stringify(contactMessage(100));
    const slow = await slowSenders(Array(20).fill('/api/send-email'), body);
    try {
      // Their bodies have begun: the server is reading from all of them.
      await when(() => slow.sent() >= 2);
      await expectNormalMessageAnswered();
      // They are still connected, still sending, and none has had an answer (not even the 408
      // that ends them): the message was answered without waiting for them.
      expect(slow.sockets.every((socket) => !socket.destroyed)).toBe(true);
      expect(slow.received).toEqual(slow.sockets.map(() => ''));
      expect(slow.sent()).toBeLessThan(body.length);
      for (const socket of slow.sockets) socket.destroy();
      await expectNormalMessageAnswered();
    } finally {
      slow.stop();
    }
  });

  test('with slow clients on every other form and page that takes a post, a message is answered while they are still sending', async () => {
    const PATHS = [
      '/api/submit-waiver',
      '/api/consultation/book',
      '/api/book-session',
      '/api/classes/book',
      '/api/classes/waitlist',
      '/api/notify',
      '/book/manage',
      '/classes/manage',
      '/classes/claim',
      '/consultation/taken',
      '/refused',
      '/api/stripe-webhook',
    ];
    const body = JSON.stringify(contactMessage(102));
    const slow = await slowSenders(PATHS, body);
    try {
      await when(() => slow.sent() >= 2);
      await expectNormalMessageAnswered();
      // Those that read a body are still being read, unanswered; those that answer without
      // reading one (a page that takes no post, the webhook without the studio's keys) have
      // answered at once (a 303 or a 4xx), not waited for it.
      const answered = Object.fromEntries(
        PATHS.flatMap((path, i) =>
          slow.received[i] ? [[path, slow.received[i].split('\r\n')[0]]] : [],
        ),
      );
      for (const [path, line] of Object.entries(answered)) {
        expect(line, path).toMatch(/^HTTP\/1\.1 (303|4\d\d) /);
      }
      // Every form function read on: none of them answered.
      expect(Object.keys(answered).filter((path) => path.startsWith('/api/'))).toEqual([
        '/api/stripe-webhook',
      ]);
      expect(slow.sent()).toBeLessThan(body.length);
      slow.stop();
      await expectNormalMessageAnswered();
    } finally {
      slow.stop();
    }
  });

  test('a client that keeps sending two bytes a second gets a JSON 408 (REQUEST_TIMEOUT_MS) and is disconnected', async () => {
    const body = JSON.stringify(contactMessage(101));
    const socket = await openSocket();
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise((done) => socket.once('close', done));
    socket.write(contactHead(body.length));
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed && sent < body.length) socket.write(body[sent++]);
    }, DRIP_MS);
    await closed;
    clearInterval(drip);
    // Cut off with its body unfinished.
    expect(sent).toBeLessThan(body.length);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(text).toMatch(/content-type: application\/json/i);
    expect(text).toMatch(/"success":false/);
  });

  test('a client that stops sending halfway gets a 408 after BODY_IDLE_TIMEOUT_MS', async () => {
    const raw = await rawExchange(studio.port, `${contactHead(200)}{"name":`, 60_000);
    expect(raw.text).toMatch(/^HTTP\/1\.1 408/);
    expect(raw.closed).toBe(true);
  });

  test('after 12 posts abandoned halfway, a message is answered', async () => {
    for (let i = 0; i < 12; i++) {
      const socket = await openSocket();
      socket.on('error', () => undefined);
      socket.write(contactHead(400));
      socket.write('{"name":"Someone who gives up","email":');
      await new Promise((done) => setTimeout(done, 50));
      socket.destroy();
    }
    await expectNormalMessageAnswered();
  });
});

describe('oversized bodies', () => {
  test('a declared Content-Length of 10 GB gets 413 before any of it is sent', async () => {
    // Only the head is sent: the answer cannot have waited for the body.
    const raw = await rawExchange(studio.port, contactHead(10 * 1024 ** 3));
    expect(raw.text).toMatch(/^HTTP\/1\.1 413/);
    expect(raw.text).toMatch(/content-type: application\/json/i);
    expect(raw.closed).toBe(true);
  });

  test('a 500 MB chunked body gets 413 as soon as it crosses the cap; memory stays bounded', async () => {
    const before = studio.rssMb();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, studio.rssMb())), 50);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const total = 500 * 1024 * 1024;
    let written = 0;
    const outcome = await new Promise<{ status: number; written: number }>((done, fail) => {
      const req = request(`${studio.url}/api/send-email`, {
        method: 'POST',
        headers: { origin: studio.url, 'content-type': 'application/json' },
      });
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        res.resume();
        done({ status: res.statusCode!, written });
        req.destroy();
      });
      req.on('error', (error) => {
        if (!answered) fail(error);
      });
      const pump = () => {
        while (!answered && written < total) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    clearInterval(sampler);
    console.info(
      `500 MB chunked: ${outcome.status} after ${(outcome.written / 1024 ** 2).toFixed(1)} MB ` +
        `; RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB`,
    );
    expect(outcome.status).toBe(413);
    // The answer came long before the 500 MB did (the rest was never sent, let alone read).
    expect(outcome.written).toBeLessThan(64 * 1024 * 1024);
    expect(peak - before).toBeLessThan(100);
    await expectNormalMessageAnswered();
  });
});

describe('a fuzz of 10,000 requests', () => {
  const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND'];
  const PATHS = [
    '/',
    '/about',
    '/contact',
    '/api/send-email',
    '/api/submit-waiver',
    '/.netlify/functions/retry-mail',
    '/.netlify/functions/nope',
    '/_astro/nope.js',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/%ff%fe',
    '/a/b/c/d/e/f/g',
    '/about/',
    '/api/send-email/',
    '/API/SEND-EMAIL',
    '/refused',
    '/refused?w=forged',
    '/consultation/taken',
    '/classes/manage?token=nope',
    '/classes/claim',
    '/book/manage?token=x',
    '/api/book-session',
    '/api/classes/book',
    '/api/stripe-webhook',
  ];
  const TYPES = [
    'application/json',
    'application/json ; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '',
  ];
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];

  function randomBody(): Buffer {
    switch (Math.floor(Math.random() * 5)) {
      case 0:
        return Buffer.alloc(0);
      case 1:
        return randomBytes(Math.floor(Math.random() * 2048));
      case 2:
        return Buffer.from(JSON.stringify(contactMessage(Math.floor(Math.random() * 1e6))));
      case 3:
        return Buffer.from(`{"name":"${'x'.repeat(Math.floor(Math.random() * 40_000))}"}`);
      default:
        return Buffer.concat([Buffer.from('{"message":"'), randomBytes(200), Buffer.from('"}')]);
    }
  }

  test('memory stays within 200 MB of where it started, and a message is still answered', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 24 });
    // Warm every path once, so that what is measured is growth, not first use.
    for (const path of PATHS) {
      await fetch(`${studio.url}${path}`)
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    }
    const before = studio.rssMb();
    const statuses = new Map<number, number>();
    const one = () =>
      new Promise<void>((done) => {
        const method = pick(METHODS);
        const body = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : randomBody();
        const headers: Record<string, string> = {
          'x-fuzz': randomBytes(8).toString('hex'),
          cookie: `a=${randomBytes(6).toString('base64url')}`,
        };
        const type = pick(TYPES);
        if (type) headers['content-type'] = type;
        // A few carry the site's own origin, so that they get past the origin check.
        if (Math.random() < 0.05) headers.origin = studio.url;
        if (Math.random() < 0.1) headers['x-forwarded-for'] = '203.0.113.1, 10.0.0.1';
        const abort = Math.random() < 0.03;
        const req = request(
          `${studio.url}${pick(PATHS)}${Math.random() < 0.2 ? `?q=${randomBytes(4).toString('hex')}` : ''}`,
          { method, headers, agent, timeout: 15_000 },
          (res) => {
            statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
            res.resume();
            res.on('end', () => done());
            res.on('error', () => done());
          },
        );
        req.on('error', () => done());
        req.on('timeout', () => req.destroy());
        if (abort && body.length > 10) {
          req.write(body.subarray(0, body.length >> 1));
          setTimeout(() => req.destroy(), 5);
          return;
        }
        req.end(body);
      });

    let next = 0;
    const worker = async () => {
      while (next < 10_000) {
        next += 1;
        await one();
      }
    };
    await Promise.all(Array.from({ length: 24 }, worker));
    agent.destroy();
    await new Promise((done) => setTimeout(done, 1_000));
    const after = studio.rssMb();
    console.info(
      `fuzz: RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB; statuses ` +
        JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0]))),
    );
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(after - before).toBeLessThan(200);
    await expectNormalMessageAnswered();
  }, 300_000);
});
