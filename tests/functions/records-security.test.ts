import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { newToken, tokenHash } from '../../src/server/platform/tokens';
import { Hono } from 'hono';
import { deskFunction, signedIn, type DeskEnv } from '../../src/server/records/router';
import { FRESH_SIGN_IN_NEEDED, SIGN_IN_SENT } from '../../src/shared/desk-api';
import { API_SECURITY_HEADERS } from '../../src/server/request/responses';
import { advanceClock, setClock } from '../../src/server/platform/clock';
import { useFunctionEnv } from '../fixtures/function-env';
import {
  cookieOf,
  desk,
  deskRequest,
  DESK_FUNCTIONS,
  functionFor,
  linkToken,
  ORIGIN,
  sendMessage,
  signIn,
  signWaiver,
  STAFF,
} from './desk';

const env = useFunctionEnv();

beforeEach(() => {
  vi.stubEnv('STAFF_EMAILS', `${STAFF}, Second.Staff@Example.test`);
  vi.stubEnv('CONTACT_TO', 'studio-inbox@example.test');
  vi.stubEnv('CONTACT_RATE_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_INBOX_LIMIT', '1000/1m');
});

afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const WAIVER = '0b6f5f0e-3c1e-4f5e-9a3b-2d7c8e9f0a1b';

/** Every request the desk makes that needs a session, with a body where it posts one. */
const PROTECTED: [method: 'GET' | 'POST', path: string, body?: object][] = [
  ['GET', '/api/records/session'],
  ['POST', '/api/records/sign-out', { everywhere: true }],
  ['GET', '/api/records/waivers?q=okon'],
  ['GET', `/api/records/waivers/${WAIVER}`],
  ['GET', `/api/records/waivers/${WAIVER}/pdf`],
  ['GET', '/api/records/messages?show=spam'],
  ['POST', '/api/records/messages/1/not-spam', {}],
  ['GET', '/api/records/delivery'],
  ['POST', '/api/records/delivery/1/send-again', {}],
  ['GET', '/api/records/export/waivers?health=yes'],
  ['GET', '/api/records/export/messages'],
  ['POST', '/api/records/erasure/preview', { email: 'ingrid@example.test' }],
  [
    'POST',
    '/api/records/erasure',
    { email: 'ingrid@example.test', confirm: 'ingrid@example.test' },
  ],
  ['GET', '/api/records/log'],
  ['GET', '/api/records/retention'],
  ['GET', '/api/records/consultations?when=past'],
  ['POST', `/api/records/consultations/${WAIVER}/cancel`, { note: 'Sorry' }],
  ['GET', '/api/records/consultations/calendar'],
  ['POST', '/api/records/consultations/blocks', { from: '2027-03-01', to: '2027-03-02', note: '' }],
  ['POST', '/api/records/consultations/blocks/1/remove', {}],
  ['POST', '/api/records/consultations/feed', {}],
  ['GET', '/api/records/participants?q=okon'],
  ['GET', `/api/records/participants/${WAIVER}`],
  ['GET', `/api/records/participants/${WAIVER}/health`],
  ['GET', '/api/records/waiver-texts'],
  ['GET', '/api/records/re-sign'],
  ['POST', '/api/records/re-sign', {}],
  ['GET', '/api/records/kiosks'],
  ['POST', '/api/records/kiosks', { label: 'Tablet' }],
  ['POST', '/api/records/kiosks/0123456789abcdef/off', {}],
  ['GET', '/api/records/list'],
  ['GET', '/api/records/list/export'],
  ['POST', '/api/records/list/remove', { email: 'ingrid@example.test' }],
  ['POST', '/api/records/list/announce', { eventId: 'spring-reformer-workshop' }],
  ['GET', '/api/records/bookings'],
  ['GET', '/api/records/export/bookings'],
  ['POST', '/api/records/bookings/paid', { kind: 'session', id: WAIVER }],
  ['POST', '/api/records/bookings/no-show', { kind: 'session', id: WAIVER, noShow: true }],
  ['POST', '/api/records/bookings/cancel', { kind: 'session', id: WAIVER, note: '' }],
  [
    'POST',
    '/api/records/bookings/cancel-class',
    { key: 'mat-foundations-tu-1800', start: '2027-03-03T02:00:00.000Z', note: '' },
  ],
  [
    'POST',
    '/api/records/bookings/refund',
    { kind: 'session', id: WAIVER, amount: '', request: WAIVER },
  ],
  [
    'POST',
    '/api/records/bookings/add-class',
    { class: 'mat-foundations', date: '2027-03-05', time: '18:00' },
  ],
];

const call = (method: 'GET' | 'POST', path: string, body?: object, cookie?: string) =>
  desk(path, { method, body: method === 'POST' ? (body ?? {}) : undefined, cookie });

async function expect401Everywhere(cookie: string | undefined) {
  for (const [method, path, body] of PROTECTED) {
    const response = await call(method, path, body, cookie);
    expect(response.status, `${method} ${path}`).toBe(401);
    expect(await response.json()).toEqual({
      success: false,
      error: 'Please sign in to the records desk.',
    });
  }
}

describe('the list of desk routes', () => {
  test("every route answers some method under the function's path, and each closed one is tested here", () => {
    const tested = new Set(
      PROTECTED.map(([method, path]) => {
        const pathname = new URL(path, ORIGIN).pathname;
        const route = functionFor(pathname).routes.find(
          (r) => r.method === method && new URLPattern({ pathname: r.path }).test({ pathname }),
        );
        return `${method} ${route?.path}`;
      }),
    );
    for (const { name, handler, config } of DESK_FUNCTIONS) {
      expect(handler.routes.length, name).toBeGreaterThan(30);
      for (const route of handler.routes) {
        expect(route.path, name).toMatch(/^\/api\/records\//);
        expect(config.path, name).toBe('/api/records/*');
        if (!route.open) expect(tested, name).toContain(`${route.method} ${route.path}`);
      }
    }
  });

  test('a path is matched as Netlify matches it: any case, a trailing slash ignored, parts decoded', async () => {
    const cookie = await signIn(env.smtp);
    const id = await signWaiver();
    const waiver = (path: string) => call('GET', path, undefined, cookie);
    const found = await waiver(`/API/Records/Waivers/${id.toUpperCase()}/`);
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ id });
    expect((await waiver(`/api/records/waivers/${id}/pdf/`)).status).toBe(200);
    expect((await waiver(`/api/records/waivers/${id}/pdf/more`)).status).toBe(404);
    expect((await waiver('/api/records/waivers/%E0%A4%A')).status).toBe(404);
    expect((await waiver('/api/records/nothing-here')).status).toBe(404);
  });

  test('a route that does not begin with a guard does not load', () => {
    const unguarded = new Hono<DeskEnv>()
      .get('/guarded', signedIn(), (c) => c.json({}))
      .get('/open-by-mistake', (c) => c.json({}));
    expect(() => deskFunction(unguarded)).toThrow(
      'GET /api/records/open-by-mistake has no guard: begin it with signedIn or open',
    );
  });

  test('HEAD, PUT, DELETE and OPTIONS are 405 with the methods the path takes', async () => {
    const cookie = await signIn(env.smtp);
    for (const method of ['HEAD', 'PUT', 'DELETE', 'OPTIONS']) {
      const response = await functionFor('/api/records/session')(
        deskRequest('/api/records/session', { method: method as 'PUT', cookie }),
      );
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow'), method).toBe('GET, POST');
      expect(response.headers.get('cache-control'), method).toBe('no-store');
    }
  });
});

describe('every records endpoint answers 401', () => {
  test('without a session', async () => {
    await expect401Everywhere(undefined);
  });

  test('with a session that has expired', async () => {
    const cookie = await signIn(env.smtp);
    expect((await call('GET', '/api/records/session', undefined, cookie)).status).toBe(200);
    await env.db.query(`UPDATE staff_sessions SET expires_at = now() - interval '1 second'`);
    await expect401Everywhere(cookie);
  });

  test('with a forged token, a malformed one, or a sign-in link token used as a session', async () => {
    await expect401Everywhere(`__Host-desk=${newToken()}`);
    await expect401Everywhere(`__Host-desk=${'A'.repeat(43)}`);
    await expect401Everywhere('__Host-desk=../../etc/passwd');
    await desk('/api/records/sign-in', { body: { email: STAFF } });
    await env.smtp.waitForMails(1);
    await expect401Everywhere(`__Host-desk=${linkToken(env.smtp)}`);
  });

  test("with another site's token: a session of another database, or a cookie this site did not set", async () => {
    // A session token that is real somewhere else: its hash is not in this database.
    const elsewhere = newToken();
    await expect401Everywhere(`__Host-desk=${elsewhere}`);
    // A live session's token under the name an http sibling host would use: never read here.
    const cookie = await signIn(env.smtp);
    const token = cookie.split('=')[1]!;
    await expect401Everywhere(`desk=${token}`);
    await expect401Everywhere(`__Secure-desk=${token}`);
  });

  test('after sign-out, and the cookie is deleted', async () => {
    const cookie = await signIn(env.smtp);
    const out = await call('POST', '/api/records/sign-out', {}, cookie);
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-desk=; Path=\/; Max-Age=0;/);
    await expect401Everywhere(cookie);
  });

  test('after "sign out everywhere": every session of that person, and their unused links', async () => {
    const first = await signIn(env.smtp);
    const second = await signIn(env.smtp);
    const other = await signIn(env.smtp, 'second.staff@example.test');
    await desk('/api/records/sign-in', { body: { email: STAFF } });
    await env.smtp.waitForMails(4);
    const unused = linkToken(env.smtp);

    expect((await call('POST', '/api/records/sign-out', { everywhere: true }, first)).status).toBe(
      200,
    );
    await expect401Everywhere(first);
    await expect401Everywhere(second);
    expect((await desk('/api/records/session', { body: { token: unused } })).status).toBe(401);
    // Someone else's session is theirs to end.
    expect((await call('GET', '/api/records/session', undefined, other)).status).toBe(200);
  });

  test('once the address is taken out of STAFF_EMAILS', async () => {
    const cookie = await signIn(env.smtp);
    vi.stubEnv('STAFF_EMAILS', 'someone-else@example.test');
    await expect401Everywhere(cookie);
  });

  test('and a stale cookie is deleted with the answer', async () => {
    const response = await call('GET', '/api/records/log', undefined, `__Host-desk=${newToken()}`);
    expect(response.headers.get('set-cookie')).toMatch(/^__Host-desk=; Path=\/; Max-Age=0;/);
  });
});

describe('how long a session lasts', () => {
  afterEach(() => setClock(undefined));
  const session = (cookie: string) => call('GET', '/api/records/session', undefined, cookie);
  const MINUTE = 60_000;

  test('it ends after 30 minutes without a request; each request starts the 30 minutes again', async () => {
    const cookie = await signIn(env.smtp);
    advanceClock(29 * MINUTE);
    expect((await session(cookie)).status).toBe(200);
    advanceClock(29 * MINUTE);
    expect((await call('GET', '/api/records/waivers', undefined, cookie)).status).toBe(200);
    advanceClock(31 * MINUTE);
    await expect401Everywhere(cookie);
    // ...and it stays over: the requests after its end did not bring it back.
    advanceClock(MINUTE);
    expect((await session(cookie)).status).toBe(401);
  });

  test('it ends after 12 hours however busy she is', async () => {
    const cookie = await signIn(env.smtp);
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      advanceClock(20 * MINUTE);
      expect((await session(cookie)).status, `${minutes} minutes in`).toBe(200);
    }
    advanceClock(20 * MINUTE);
    expect((await session(cookie)).status).toBe(401);
  });

  test('the desk is told whether the sign-in is fresh (under 15 minutes old) for erasures and health exports', async () => {
    const cookie = await signIn(env.smtp);
    expect(await (await session(cookie)).json()).toMatchObject({ fresh: true });
    advanceClock(16 * MINUTE);
    expect(await (await session(cookie)).json()).toMatchObject({ fresh: false });
  });
});

describe('an erasure or a health export with a sign-in older than 15 minutes', () => {
  afterEach(() => setClock(undefined));
  const EMAIL = 'ingrid@example.test';
  const erase = (cookie: string) =>
    call('POST', '/api/records/erasure', { email: EMAIL, confirm: EMAIL }, cookie);
  const FRESH = {
    success: false,
    error: FRESH_SIGN_IN_NEEDED,
    reason: 'fresh-sign-in',
  };

  test('asks for a fresh sign-in link, erases and exports nothing, and works once she follows one', async () => {
    await signWaiver({ email: EMAIL });
    const cookie = await signIn(env.smtp);
    advanceClock(16 * 60_000);

    const refused = await erase(cookie);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(FRESH);
    expect(await env.count('waivers')).toBe(1);
    const health = await call('GET', '/api/records/export/waivers?health=yes', undefined, cookie);
    expect(health.status).toBe(403);
    expect(await health.json()).toEqual(FRESH);
    // What holds no health information, and looking before erasing, still work.
    expect((await call('GET', '/api/records/export/waivers', undefined, cookie)).status).toBe(200);
    const preview = await call('POST', '/api/records/erasure/preview', { email: EMAIL }, cookie);
    expect(preview.status).toBe(200);
    // The access log holds the export without health information, and no other.
    const log = await env.db.query<{ detail: { health?: boolean } }>(
      `SELECT detail FROM records_access_log WHERE action = 'export-waivers'`,
    );
    expect(log.rows.map((row) => row.detail.health)).toEqual([false]);

    const fresh = await signIn(env.smtp);
    expect(
      (await call('GET', '/api/records/export/waivers?health=yes', undefined, fresh)).status,
    ).toBe(200);
    expect((await erase(fresh)).status).toBe(200);
    expect(await env.count('waivers')).toBe(0);
  });

  test('a sign-in 14 minutes old is fresh enough', async () => {
    await signWaiver({ email: EMAIL });
    const cookie = await signIn(env.smtp);
    advanceClock(14 * 60_000);
    expect((await erase(cookie)).status).toBe(200);
  });
});

describe('sign-in links', () => {
  test('a link signs in once: the session cookie is __Host-, HttpOnly, Secure, SameSite=Strict, 12 hours', async () => {
    await desk('/api/records/sign-in', { body: { email: STAFF } });
    await env.smtp.waitForMails(1);
    const token = linkToken(env.smtp);
    const mail = env.smtp.mails[0]!;
    expect(mail.envelope.to).toEqual([STAFF]);
    expect(mail.text).toContain(`${ORIGIN}/records/sign-in#token=${token}`);

    const first = await desk('/api/records/session', { body: { token } });
    expect(first.status).toBe(200);
    const cookie = first.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(
      /^__Host-desk=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=4319\d; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(cookie).not.toMatch(/Domain/i);

    const again = await desk('/api/records/session', { body: { token } });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  test('the database holds only hashes of links and sessions', async () => {
    const cookie = await signIn(env.smtp);
    const sessionToken = cookie.split('=')[1]!;
    const links = await env.db.query<{ token_sha256: string }>(
      'SELECT token_sha256 FROM staff_sign_in_links',
    );
    const sessions = await env.db.query<{ token_sha256: string }>(
      'SELECT token_sha256 FROM staff_sessions',
    );
    expect(links.rows[0]!.token_sha256).toBe(tokenHash(linkToken(env.smtp)));
    expect(sessions.rows[0]!.token_sha256).toBe(tokenHash(sessionToken));
    const dump = JSON.stringify([links.rows, sessions.rows]);
    expect(dump).not.toContain(sessionToken);
    expect(dump).not.toContain(linkToken(env.smtp));
  });

  test('an expired link signs nobody in', async () => {
    await desk('/api/records/sign-in', { body: { email: STAFF } });
    await env.smtp.waitForMails(1);
    await env.db.query(`UPDATE staff_sign_in_links SET expires_at = now() - interval '1 second'`);
    const response = await desk('/api/records/session', { body: { token: linkToken(env.smtp) } });
    expect(response.status).toBe(401);
    expect((await response.json()).error).toMatch(/expired or was already used/);
  });

  test('links are 15 minutes long and addresses match in any case', async () => {
    await desk('/api/records/sign-in', { body: { email: '  MAYA@Example.TEST ' } });
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0]!.envelope.to).toEqual([STAFF]);
    const { rows } = await env.db.query<{ minutes: number }>(
      `SELECT round(extract(epoch FROM expires_at - created_at) / 60)::int AS minutes
         FROM staff_sign_in_links`,
    );
    expect(rows[0]!.minutes).toBe(15);
  });

  test('with no STAFF_EMAILS, the studio inbox (CONTACT_TO) may sign in', async () => {
    vi.stubEnv('STAFF_EMAILS', '');
    await desk('/api/records/sign-in', { body: { email: 'studio-inbox@example.test' } });
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0]!.envelope.to).toEqual(['studio-inbox@example.test']);
  });

  test('an address not in STAFF_EMAILS gets the same answer, in no less time, and no mail', async () => {
    const ask = async (email: string) => {
      const started = performance.now();
      const response = await desk('/api/records/sign-in', { body: { email } });
      const headers = Object.fromEntries(response.headers);
      delete headers.date;
      return {
        status: response.status,
        body: await response.text(),
        headers,
        ms: performance.now() - started,
      };
    };
    const staff = await ask(STAFF);
    const stranger = await ask('stranger@example.test');
    expect(stranger.status).toBe(200);
    expect(stranger.body).toBe(staff.body);
    expect(JSON.parse(stranger.body)).toEqual({ success: true, message: SIGN_IN_SENT });
    expect(stranger.headers).toEqual(staff.headers);
    expect(stranger.ms).toBeGreaterThanOrEqual(390);
    expect(staff.ms).toBeGreaterThanOrEqual(390);

    await env.smtp.waitForMails(1);
    expect(env.smtp.mails.map((mail) => mail.envelope.to)).toEqual([[STAFF]]);
    const { rows } = await env.db.query('SELECT email FROM staff_sign_in_links');
    expect(rows).toEqual([{ email: STAFF }]);
  });

  test('a malformed address is a 422 naming the field', async () => {
    const response = await desk('/api/records/sign-in', { body: { email: 'not an address' } });
    expect(response.status).toBe(422);
    expect((await response.json()).fieldErrors.email).toMatch(/valid e-mail/);
  });
});

describe('rate limits on sign-in requests', () => {
  /** A sign-in request: its status, words, headers (no date), time taken, and mails it caused. */
  async function ask(email: string, from: { ip?: string; cookie?: string } = {}) {
    const before = env.smtp.mails.length;
    const started = performance.now();
    const response = await desk('/api/records/sign-in', { body: { email }, ...from });
    const headers = Object.fromEntries(response.headers);
    delete headers.date;
    return {
      status: response.status,
      body: await response.text(),
      headers,
      ms: performance.now() - started,
      mailed: () => env.smtp.mails.length - before,
    };
  }
  const linksTo = (to: string) => env.smtp.mails.filter((mail) => mail.envelope.to.includes(to));

  beforeEach(() => {
    vi.stubEnv('SIGN_IN_RATE_LIMIT', '');
    vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '');
    vi.stubEnv('SIGN_IN_INBOX_LIMIT', '');
  });

  test("strangers asking for the instructor's address from 20 networks do not stop her own link", async () => {
    const strangers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ask(STAFF, { ip: `192.0.2.${i + 1}` })),
    );
    expect(strangers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const before = linksTo(STAFF).length;
    const hers = await ask(STAFF, { ip: '203.0.113.50' });
    expect(JSON.parse(hers.body)).toEqual({ success: true, message: SIGN_IN_SENT });
    expect(hers.mailed()).toBe(1);
    expect(linksTo(STAFF)).toHaveLength(before + 1);
  });

  test('over a limit the answer is the same words, status and headers after the same time, and nothing is mailed', async () => {
    vi.stubEnv('SIGN_IN_RATE_LIMIT', '2/15m');
    const allowed = [await ask(STAFF), await ask(STAFF)];
    const over = [await ask(STAFF), await ask('stranger@example.test')];
    for (const answer of [...allowed, ...over]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toBe(allowed[0]!.body);
      expect(answer.headers).toEqual(allowed[0]!.headers);
      expect(answer.ms).toBeGreaterThanOrEqual(390);
    }
    expect(JSON.parse(over[0]!.body)).toEqual({ success: true, message: SIGN_IN_SENT });
    // Called without waitUntil, a function sends its mail before it answers: the count is final.
    expect(env.smtp.mails).toHaveLength(2);
    expect(await env.count('staff_sign_in_links')).toBe(2);
  });

  test('from one network, an address gets SIGN_IN_ADDRESS_LIMIT links; another network still gets its own', async () => {
    vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '3/15m');
    // Two addresses of one IPv6 /64 are one network.
    for (let i = 0; i < 5; i += 1) await ask(STAFF, { ip: `2001:db8:1:2::${i + 1}` });
    await env.smtp.waitForMails(3);
    const other = await ask(STAFF, { ip: '2001:db8:1:3::1' });
    expect(other.status).toBe(200);
    // Called without waitUntil, a function sends its mail before it answers: the count is final.
    expect(linksTo(STAFF)).toHaveLength(4);
  });

  test('past SIGN_IN_INBOX_LIMIT from everywhere, a new device gets no link, but a device she signed in on does', async () => {
    const device = await signedInDevice();
    vi.stubEnv('SIGN_IN_INBOX_LIMIT', '5/1h');
    const before = linksTo(STAFF).length;
    // Her own sign-in was the first of the hour's five.
    for (let i = 0; i < 8; i += 1) await ask(STAFF, { ip: `198.51.100.${i + 100}` });
    expect(linksTo(STAFF)).toHaveLength(before + 4);
    const newDevice = await ask(STAFF, { ip: '203.0.113.60' });
    expect(JSON.parse(newDevice.body)).toEqual({ success: true, message: SIGN_IN_SENT });
    expect(newDevice.mailed()).toBe(0);
    const known = await ask(STAFF, { ip: '198.51.100.100', cookie: device });
    expect(known.body).toBe(newDevice.body);
    expect(known.mailed()).toBe(1);
    expect(linksTo(STAFF)).toHaveLength(before + 5);
  });

  test('a device she signed in on is held back only by its own limit, not by the limits strangers can spend', async () => {
    const device = await signedInDevice();
    vi.stubEnv('SIGN_IN_RATE_LIMIT', '3/15m');
    vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1/15m');
    vi.stubEnv('SIGN_IN_INBOX_LIMIT', '1/1h');
    // Strangers on her own network spend its client, address and inbox limits.
    for (let i = 0; i < 5; i += 1) await ask(STAFF, { ip: CLIENT_IP_OF_HERS });
    const before = linksTo(STAFF).length;
    const mailed: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      mailed.push((await ask(STAFF, { ip: CLIENT_IP_OF_HERS, cookie: device })).mailed());
    }
    // ...her device gets three links (its own limit), and not a fourth.
    expect(mailed).toEqual([1, 1, 1, 0]);
    expect(linksTo(STAFF)).toHaveLength(before + 3);
  });

  test('a device cookie is a known device only for the address it signed in as, and a forged one is none', async () => {
    const device = await signedInDevice();
    vi.stubEnv('SIGN_IN_INBOX_LIMIT', '1/1h');
    const SECOND = 'second.staff@example.test';
    expect((await ask(SECOND, { ip: '192.0.2.200' })).mailed()).toBe(1);
    // Her device asking for another address is a stranger to it...
    expect((await ask(SECOND, { ip: '192.0.2.201', cookie: device })).mailed()).toBe(0);
    // ...and her address, asked for with no device or a forged one, is past its inbox limit.
    expect((await ask(STAFF, { ip: '192.0.2.202' })).mailed()).toBe(0);
    const forged = device.replace(/=.*/, `=${newToken()}`);
    expect((await ask(STAFF, { ip: '192.0.2.203', cookie: forged })).mailed()).toBe(0);
    expect((await ask(STAFF, { ip: '192.0.2.204', cookie: device })).mailed()).toBe(1);
  });
});

const CLIENT_IP_OF_HERS = '198.51.100.77';

/** Signs in as STAFF (from her network) and returns the known-device cookie it set, ready to send. */
async function signedInDevice(): Promise<string> {
  const before = env.smtp.mails.length;
  await desk('/api/records/sign-in', { body: { email: STAFF }, ip: CLIENT_IP_OF_HERS });
  await env.smtp.waitForMails(before + 1);
  const session = await desk('/api/records/session', { body: { token: linkToken(env.smtp) } });
  const device = session.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('__Host-desk-device='));
  if (!device) throw new Error('no known-device cookie was set at sign-in');
  return device.split(';')[0]!;
}

describe('the known-device cookie', () => {
  test('is set at sign-in: __Host-, HttpOnly, Secure, SameSite=Strict, 400 days; the database keeps its hash', async () => {
    await desk('/api/records/sign-in', { body: { email: STAFF } });
    await env.smtp.waitForMails(1);
    const session = await desk('/api/records/session', { body: { token: linkToken(env.smtp) } });
    const cookies = session.headers.getSetCookie();
    expect(cookies).toHaveLength(2);
    const device = cookies.find((cookie) => cookie.startsWith('__Host-desk-device='))!;
    expect(device).toMatch(
      /^__Host-desk-device=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=34560000; HttpOnly; Secure; SameSite=Strict$/,
    );
    const token = device.split(';')[0]!.split('=')[1]!;
    const { rows } = await env.db.query<{ token_sha256: string; email: string }>(
      'SELECT token_sha256, email FROM staff_devices',
    );
    expect(rows).toEqual([{ token_sha256: tokenHash(token), email: STAFF }]);
  });

  test('signing in again on that device keeps it one device; "sign out everywhere" forgets every device', async () => {
    const device = await signedInDevice();
    await desk('/api/records/sign-in', { body: { email: STAFF }, cookie: device });
    await env.smtp.waitForMails(2);
    const again = await desk('/api/records/session', {
      body: { token: linkToken(env.smtp) },
      cookie: device,
    });
    expect(again.headers.getSetCookie().find((c) => c.startsWith('__Host-desk-device='))).toMatch(
      new RegExp(`^${device};`),
    );
    expect(await env.count('staff_devices')).toBe(1);
    const session = cookieOf(again)!;
    await desk('/api/records/sign-out', {
      body: { everywhere: true },
      cookie: `${session}; ${device}`,
    });
    expect(await env.count('staff_devices')).toBe(0);
  });
});

describe('origin, method and body', () => {
  test('a cross-origin POST is refused with 403 on every POST route, session or not', async () => {
    const cookie = await signIn(env.smtp);
    const posts: [string, object][] = [
      ['/api/records/sign-in', { email: STAFF }],
      ['/api/records/session', { token: newToken() }],
      ...PROTECTED.filter(([method]) => method === 'POST').map(
        ([, path, body]) => [path, body ?? {}] as [string, object],
      ),
    ];
    const mailsBefore = env.smtp.mails.length;
    for (const [path, body] of posts) {
      for (const headers of [
        { origin: 'https://evil.example' } as Record<string, string>,
        { origin: 'null' },
        { origin: '', 'sec-fetch-site': 'cross-site' },
      ]) {
        const request = deskRequest(path, { body, cookie, headers });
        if (headers.origin === '') request.headers.delete('origin');
        const response = await functionFor(path)(request, { ip: '198.51.100.20' } as never);
        expect(response.status, `${path} from ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    expect(env.smtp.mails).toHaveLength(mailsBefore);
    // The session survived every attempt, and nothing was logged out or erased.
    expect((await call('GET', '/api/records/session', undefined, cookie)).status).toBe(200);
  });

  test('a form post (not JSON) is 415, a GET to a POST route 405, and a large body 413', async () => {
    const cookie = await signIn(env.smtp);
    const form = deskRequest('/api/records/sign-out', {
      body: {},
      cookie,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect((await functionFor('/api/records/sign-out')(form)).status).toBe(415);
    const get = await desk('/api/records/sign-out', { method: 'GET', cookie });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const large = await call(
      'POST',
      '/api/records/erasure/preview',
      { email: 'x'.repeat(5000) },
      cookie,
    );
    expect(large.status).toBe(413);
  });

  test('every answer is no-store, noindex and carries the security headers, downloads too', async () => {
    const cookie = await signIn(env.smtp);
    const id = await signWaiver();
    for (const response of [
      await call('GET', '/api/records/session'),
      await call('GET', '/api/records/waivers', undefined, cookie),
      await call('GET', `/api/records/waivers/${id}/pdf`, undefined, cookie),
      await call('GET', '/api/records/export/messages', undefined, cookie),
      await desk('/api/records/sign-in', { body: { email: 'x@example.test' } }),
    ]) {
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-robots-tag')).toBe('noindex, nofollow');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    }
  });

  test('every answer carries the headers every function sends and no others: routes, downloads, 404s, 405s, HEAD', async () => {
    const cookie = await signIn(env.smtp);
    const id = await signWaiver();
    // What says what the answer is; the rest is what every desk answer carries.
    const OWN = ['content-type', 'content-disposition', 'content-length', 'set-cookie', 'allow'];
    const EVERY = {
      ...API_SECURITY_HEADERS,
      'cache-control': 'no-store',
      'x-robots-tag': 'noindex, nofollow',
    };
    for (const response of [
      await call('GET', '/api/records/session'),
      await call('GET', '/api/records/waivers', undefined, cookie),
      await call('GET', `/api/records/waivers/${id}/pdf`, undefined, cookie),
      await call('GET', '/api/records/export/messages', undefined, cookie),
      await call('GET', '/api/records/nothing-here', undefined, cookie),
      await desk('/api/records/session', { method: 'PUT', cookie }),
      await functionFor('/api/records/session')(
        deskRequest('/api/records/session', { method: 'HEAD' as 'GET', cookie }),
      ),
      await desk('/api/records/sign-in', { body: { email: 'x@example.test' } }),
    ]) {
      const headers = Object.fromEntries(response.headers);
      for (const name of OWN) delete headers[name];
      expect(headers, `${response.status}`).toEqual(EVERY);
    }
  });
});

describe('the session cookie', () => {
  test('is __Host- and Secure over https and on loopback; plain `desk` over http elsewhere', async () => {
    const { setSessionCookie } = await import('../../src/server/auth/sessions');
    const at = (url: string) =>
      setSessionCookie(new Request(url), newToken(), new Date(Date.now() + 60_000));
    expect(at('https://stillpoint.example/api/records/session')).toMatch(
      /^__Host-desk=.*; Secure;/,
    );
    expect(at('http://localhost:8888/api/records/session')).toMatch(/^__Host-desk=.*; Secure;/);
    expect(at('http://192.168.1.20:8888/api/records/session')).toMatch(/^desk=/);
    expect(at('http://192.168.1.20:8888/api/records/session')).not.toMatch(/Secure/);
    vi.stubEnv('SITE_URL', 'https://stillpoint.example');
    // TLS ended by a proxy in front: the function sees http, the browser https.
    expect(at('http://stillpoint.example/api/records/session')).toMatch(/^__Host-desk=.*; Secure;/);
  });

  test('a sign-in link points at SITE_URL when set, never at the Host a request names', async () => {
    vi.stubEnv('SITE_URL', 'https://stillpoint.example');
    // From the site's own page, with a Host the proxy in front (or a forger) wrote.
    const forged = new Request('http://evil.example/api/records/sign-in', {
      method: 'POST',
      headers: { origin: 'https://stillpoint.example', 'content-type': 'application/json' },
      body: JSON.stringify({ email: STAFF }),
    });
    expect((await functionFor('/api/records/sign-in')(forged)).status).toBe(200);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0]!.text).toContain('https://stillpoint.example/records/sign-in#token=');
    expect(env.smtp.mails[0]!.text).not.toContain('evil.example');
  });
});

describe("the site's own address", () => {
  test('without SITE_URL, a sign-in asked for with a forged Host and a matching Origin is refused, and mails nothing', async () => {
    const forged = new Request('http://evil.example/api/records/sign-in', {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ email: STAFF }),
    });
    expect((await functionFor('/api/records/sign-in')(forged)).status).toBe(403);
    await desk('/api/records/sign-in', { body: { email: STAFF } });
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails).toHaveLength(1);
    expect(env.smtp.mails[0]!.text).toContain(`${ORIGIN}/records/sign-in#token=`);
    expect(env.smtp.mails[0]!.text).not.toContain('evil.example');
  });
});

describe('logs', () => {
  test('no log line holds health information, a token, or a record of a person', async () => {
    const lines: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push(args.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(' '));
      });
    }
    const HEALTH = ['Xylophone syndrome 4471', 'Quetiapine-zz 9981'];
    const id = await signWaiver({ medicalConditions: HEALTH[0], medications: HEALTH[1] });
    await signWaiver({ medicalConditions: HEALTH[0], medications: HEALTH[1] }, true);
    await sendMessage({ message: `About my ${HEALTH[0]}` }, true);
    env.smtp.setFailing(true);
    await sendMessage({ message: `Still about ${HEALTH[0]}` });
    env.smtp.setFailing(false);
    const cookie = await signIn(env.smtp);
    const sessionToken = cookie.split('=')[1]!;
    const tokens = [sessionToken, linkToken(env.smtp)];

    for (const path of [
      `/api/records/waivers/${id}`,
      `/api/records/waivers/${id}/pdf`,
      '/api/records/waivers?q=okonkwo',
      '/api/records/messages?show=spam',
      '/api/records/delivery',
      '/api/records/export/waivers?health=yes',
      '/api/records/export/messages',
      '/api/records/log',
      '/api/records/waivers/not-a-uuid',
    ]) {
      expect((await call('GET', path, undefined, cookie)).status).toBeLessThan(500);
    }
    await call(
      'POST',
      '/api/records/erasure',
      {
        email: 'ingrid@example.test',
        confirm: 'ingrid@example.test',
      },
      cookie,
    );
    // A broken key: the desk's error is logged by its name only.
    await signWaiver({ medicalConditions: HEALTH[0] });
    const [row] = (await env.db.query<{ id: string }>('SELECT id FROM waivers')).rows;
    await env.db.query(`UPDATE waivers SET medical_conditions = 'enc1:deadbeef:x:y:z'`);
    expect((await call('GET', `/api/records/waivers/${row!.id}`, undefined, cookie)).status).toBe(
      500,
    );
    await call('POST', '/api/records/sign-out', {}, cookie);

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      for (const secret of [...HEALTH, ...tokens]) expect(line).not.toContain(secret);
    }
  });
});
