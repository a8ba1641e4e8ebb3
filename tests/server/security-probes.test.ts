/**
 * Black-box probes of the real `npm start` (the built site and its functions, in a child process),
 * tried as an attacker would: path tricks that would lead a browser off the site or reach a file
 * that is never served, a forged Host header, a stranger trying to keep the instructor out of
 * the desk, and the waiver form used to mail strangers. Mail lands in the server's outbox folder
 * (no SMTP_URL) and is read back from there.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SIGN_IN_SENT, type Undelivered } from '../../src/shared/desk-api.ts';
import { waiverBody } from '../fixtures/submissions.ts';
import {
  ensureBuilt,
  postJson,
  rawExchange,
  startHangingDatabase,
  startStudio,
  type Studio,
} from './harness.ts';

const STAFF = 'maya@example.test';
/** The studio's records inbox: the e-mail in content/site.yaml (no CONTACT_TO here). */
const RECORDS = 'hello@stillpointpilates.studio';

let studio: Studio;
let outbox: string;
/** The studio's desk session (its Cookie header), to ask what the outbox still owes. */
let desk: string;

beforeAll(async () => {
  ensureBuilt();
  outbox = await mkdtemp(join(tmpdir(), 'studio-probe-outbox-'));
  studio = await startStudio({
    env: {
      MAIL_OUTBOX_DIR: outbox,
      STAFF_EMAILS: STAFF,
      // Behind a proxy: the client is the last X-Forwarded-For, so one test can be many clients.
      TRUST_PROXY: '1',
      // The defaults, which the harness lifts for other tests.
      WAIVER_COPY_LIMIT: '3/24h',
    },
  });
  // The instructor signs in to the desk first, while no other mail is on its way.
  await askForLink('203.0.113.250');
  const [link] = await mailsTo(STAFF, 1);
  const token = /#token=([\w-]+)/.exec(String(link!.text))![1];
  const session = await postJson(studio.url, '/api/records/session', { token });
  expect(session.status).toBe(200);
  desk = session.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0]!)
    .join('; ');
});
afterAll(async () => {
  await studio?.stop();
  await rm(outbox, { recursive: true, force: true });
});

/** A raw GET, exactly as written (no client normalises the path first). */
async function rawGet(path: string, headers = '') {
  const { text } = await rawExchange(
    studio.port,
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${studio.port}\r\n${headers}Connection: close\r\n\r\n`,
  );
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const location = /\r\nlocation: ([^\r]*)/i.exec(head)?.[1];
  return { status, location, head, body: rest.join('\r\n\r\n') };
}

/**
 * Every mail in the outbox folder so far, parsed, in no particular order: a file is named by its
 * row (`outbox-<id>.eml`, `sign-in-<key>.eml`, the key a hash), so names do not sort by time.
 */
async function mails(): Promise<ParsedMail[]> {
  const files = (await readdir(outbox).catch(() => [] as string[])).filter((f) =>
    f.endsWith('.eml'),
  );
  return Promise.all(files.map(async (file) => simpleParser(await readFile(join(outbox, file)))));
}

const to = (mail: ParsedMail) =>
  [mail.to ?? []].flat().flatMap((address) => address.value.map((v) => v.address?.toLowerCase()));

/** Mails to `address`, once at least `count` of them have arrived (mail goes out after the answer). */
async function mailsTo(address: string, count: number): Promise<ParsedMail[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = (await mails()).filter((mail) => to(mail).includes(address));
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((done) => setTimeout(done, 100));
  }
}

/**
 * Resolves once the outbox owes no mail (the desk's delivery list): every mail the server will
 * send has then been sent, so a count of mails is final; no waiting for a window in which
 * another might come.
 */
async function outboxDrained(): Promise<void> {
  await expect
    .poll(
      async () => {
        const answer = await fetch(`${studio.url}/api/records/delivery`, {
          headers: { cookie: desk },
        });
        expect(answer.status).toBe(200);
        return ((await answer.json()) as { undelivered: Undelivered }).undelivered.owed;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(0);
}

/** A sign-in request as the desk's page sends it, from the client `ip`. */
async function askForLink(ip: string, cookie?: string) {
  const response = await postJson(
    studio.url,
    '/api/records/sign-in',
    { email: STAFF },
    {
      'x-forwarded-for': ip,
      ...(cookie && { cookie }),
    },
  );
  return { status: response.status, body: await response.json() };
}

describe('path tricks', () => {
  test('GET //evil.example/..%2fabout/ is a 404, never a redirect off the site', async () => {
    for (const path of [
      '//evil.example/..%2fabout/',
      '//evil.example/..%2fabout',
      '/%2fevil.example/..%2fabout/',
      '/%5cevil.example/..%2fabout/',
      '//evil.example/%2e%2e%2fabout/',
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.location, path).toBeUndefined();
    }
  });

  test('every redirect the static files answer points at a path on the site itself', async () => {
    for (const path of ['/about/', '/contact/', '/events/', '/about/?a=1']) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(301);
      expect(answer.location, path).toMatch(/^\/[^/\\]/);
    }
  });

  test('_headers and _redirects are never served, however the path is written', async () => {
    for (const path of [
      '/_headers',
      '//_headers',
      '/.%2f_headers',
      '/%2f_headers',
      '/./_headers',
      '/%2e/_headers',
      '/x/../_headers',
      '/_HEADERS',
      '//_redirects',
      '/_headers/',
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('Strict-Transport-Security:');
    }
  });

  test("the desk's pages, however their path is written, are noindex and no-store or not found", async () => {
    for (const path of ['/records', '/r%65cords', '/records/sign-in', '/records/sign%2Din']) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(200);
      expect(answer.head, path).toMatch(/\r\nx-robots-tag: noindex, nofollow/i);
      expect(answer.head, path).toMatch(/\r\ncache-control: no-store/i);
    }
    for (const path of ['//records', '//records/sign-in', '/.%2frecords', '/records//sign-in']) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('Records desk');
    }
  });
});

describe('headers on every answer', () => {
  /** A raw request with `method`, exactly as written. */
  async function raw(method: string, path: string, headers = '') {
    const { text } = await rawExchange(
      studio.port,
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${studio.port}\r\n${headers}Connection: close\r\n\r\n`,
    );
    const head = text.split('\r\n\r\n')[0] ?? '';
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head };
  }

  test("the server's own refusals and the functions' 405s carry the security headers", async () => {
    const asked: [string, string, string?][] = [
      ['PUT', '/about'],
      ['DELETE', '/'],
      ['PATCH', '/consultation/manage'],
      ['PUT', '/notify/confirm'],
      ['DELETE', '/notify/unsubscribe'],
      ['PUT', '/consultation'],
      ['OPTIONS', '/api/send-email'],
      ['GET', '*'],
      ['POST', '/api/send-email', 'Content-Length: 999999999\r\n'],
    ];
    for (const [method, path, headers] of asked) {
      const answer = await raw(method, path, headers);
      expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      for (const name of [
        'content-security-policy',
        'strict-transport-security',
        'x-content-type-options',
        'x-frame-options',
        'referrer-policy',
      ]) {
        expect(answer.head, `${method} ${path}: ${name}`).toMatch(new RegExp(`\r\n${name}: `, 'i'));
      }
    }
  });

  test('every path a link page or an arrived-at page answers at is noindex, its .html twin too', async () => {
    // The link pages are rendered on demand, at their own paths only (no .html twin).
    for (const path of [
      '/consultation/manage',
      '/notify/confirm',
      '/notify/unsubscribe',
      '/notify/sent',
      '/notify/sent.html',
      '/contact/sent',
      '/contact/sent.html',
      '/waiver/signed',
      '/waiver/signed.html',
      '/404',
      '/404.html',
    ]) {
      const answer = await raw('GET', path);
      expect(answer.head, path).toMatch(/\r\nx-robots-tag: noindex/i);
    }
    // The public pages stay indexable.
    for (const path of ['/', '/about', '/about.html', '/consultation', '/waiver']) {
      const answer = await raw('GET', path);
      expect(answer.status, path).toBe(200);
      expect(answer.head, path).not.toMatch(/\r\nx-robots-tag:/i);
    }
  });
});

describe('the embedded database', () => {
  test('is not reachable without its password, which changes with every start', async () => {
    const url = /Local database \(one session at a time\): (\S+)/.exec(studio.output())?.[1];
    expect(url).toBeDefined();
    const address = new URL(url!);
    expect(address.hostname).toBe('127.0.0.1');
    expect(address.password).toMatch(/^[\w-]{20,}$/);

    const connect = async (connectionString: string) => {
      const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    expect(await connect(url!)).toBe(1);
    for (const password of ['', 'postgres', 'x'.repeat(43)]) {
      const guess = new URL(url!);
      guess.password = password;
      await expect(connect(guess.href), `password "${password}"`).rejects.toThrow();
    }
  });
});

describe('a forged Host header', () => {
  test("gets a refusal, and no link in the studio's mail points anywhere but the site", async () => {
    await outboxDrained();
    const before = (await mails()).length;
    const links = (await mailsTo(STAFF, 0)).length;
    const body = JSON.stringify({ email: STAFF });
    for (const path of ['/api/records/sign-in', '/api/send-email']) {
      const { text } = await rawExchange(
        studio.port,
        [
          `POST ${path} HTTP/1.1`,
          'Host: evil.example',
          'Origin: http://evil.example',
          'Content-Type: application/json',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
      expect(text, path).toMatch(/^HTTP\/1\.1 403 /);
    }
    await outboxDrained();
    expect((await mails()).length).toBe(before);

    expect((await askForLink('192.0.2.250')).status).toBe(200);
    const [link] = (await mailsTo(STAFF, links + 1)).slice(-1);
    expect(link!.text).toContain(`${studio.url}/records/sign-in#token=`);
    for (const mail of await mails()) expect(String(mail.text)).not.toContain('evil.example');
  });
});

describe("strangers asking for the instructor's links", () => {
  test('20 requests from 20 addresses for her address do not stop her own link from arriving', async () => {
    await outboxDrained();
    const before = (await mailsTo(STAFF, 0)).length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => askForLink(`198.51.100.${i + 1}`)),
    );
    for (const answer of answers) {
      expect(answer).toEqual({ status: 200, body: { success: true, message: SIGN_IN_SENT } });
    }
    await mailsTo(STAFF, before + 20);
    expect(await askForLink('203.0.113.7')).toEqual({
      status: 200,
      body: { success: true, message: SIGN_IN_SENT },
    });
    await mailsTo(STAFF, before + 21);
    await outboxDrained();
    expect(await mailsTo(STAFF, 0)).toHaveLength(before + 21);
  });

  test("past the hour's limit strangers keep her new devices waiting, never a device she signed in on", async () => {
    // She signs in on her phone: the desk remembers it.
    await outboxDrained();
    const before = new Set((await mailsTo(STAFF, 0)).map((mail) => mail.messageId));
    await askForLink('203.0.113.8');
    const [link, ...others] = (await mailsTo(STAFF, before.size + 1)).filter(
      (mail) => !before.has(mail.messageId),
    );
    expect(others).toEqual([]);
    const token = /#token=([\w-]+)/.exec(String(link!.text))![1];
    const session = await postJson(studio.url, '/api/records/session', { token });
    expect(session.status).toBe(200);
    const device = session.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith('__Host-desk-device='))!
      .split(';')[0]!;

    // Strangers on 40 networks use up the address's allowance for the hour (30 by default)...
    await Promise.all(Array.from({ length: 40 }, (_, i) => askForLink(`192.0.2.${i + 10}`)));
    await outboxDrained();
    const spent = (await mailsTo(STAFF, 0)).length;
    // ...a new device of hers is answered as always but waits for the next hour...
    expect((await askForLink('203.0.113.9')).body).toEqual({
      success: true,
      message: SIGN_IN_SENT,
    });
    // ...and her phone gets its link at once.
    expect((await askForLink('203.0.113.9', device)).status).toBe(200);
    await mailsTo(STAFF, spent + 1);
    await outboxDrained();
    expect(await mailsTo(STAFF, 0)).toHaveLength(spent + 1);
  });
});

describe("the waiver's copy to the participant", () => {
  test('one address gets 3 copies a day; the studio gets every waiver', async () => {
    const email = 'copy-probe@example.test';
    await outboxDrained();
    const before = (await mailsTo(RECORDS, 0)).length;
    for (let i = 0; i < 5; i += 1) {
      const response = await postJson(studio.url, '/api/submit-waiver', waiverBody({ email }), {
        'x-forwarded-for': `203.0.113.${100 + i}`,
      });
      expect(response.status).toBe(200);
    }
    expect(await mailsTo(RECORDS, before + 5)).toHaveLength(before + 5);
    expect(await mailsTo(email, 3)).toHaveLength(3);
    // The two held back never come: once the outbox owes nothing, the count is final.
    await outboxDrained();
    expect((await mails()).filter((mail) => to(mail).includes(email))).toHaveLength(3);
  });
});

describe('self-hosted', () => {
  test('on a database of its own and without SITE_URL, npm start refuses to start, saying why', async () => {
    const database = await startHangingDatabase();
    try {
      await expect(
        startStudio({
          env: { NETLIFY_DB_URL: database.url, SITE_URL: '' },
        }),
      ).rejects.toThrow(/SITE_URL is not set: self-hosted \(NETLIFY_DB_URL is set\)/);
    } finally {
      await database.close();
    }
  });
});
