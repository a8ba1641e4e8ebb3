import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { newToken, tokenHash } from '../../src/server/auth/tokens';
import { deskFunction, paramsOf } from '../../src/server/records/endpoint';
import { SIGN_IN_SENT } from '../../src/shared/desk-api';
import { useFunctionEnv } from '../fixtures/function-env';
import {
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
  ['GET', '/api/records/consultations?when=past'],
  ['POST', `/api/records/consultations/${WAIVER}/cancel`, { note: 'Sorry' }],
  ['GET', '/api/records/consultations/calendar'],
  ['POST', '/api/records/consultations/blocks', { from: '2027-03-01', to: '2027-03-02', note: '' }],
  ['POST', '/api/records/consultations/blocks/1/remove', {}],
  ['POST', '/api/records/consultations/feed', {}],
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
  test('every path of every records function answers some method, and each closed one is tested here', () => {
    const tested = new Set(
      PROTECTED.map(([method, path]) => {
        const pathname = new URL(path, ORIGIN).pathname;
        const route = functionFor(pathname).routes.find(
          (r) => r.method === method && paramsOf(r.path, pathname),
        );
        return `${method} ${route?.path}`;
      }),
    );
    for (const { name, handler, config } of DESK_FUNCTIONS) {
      const paths = [config.path].flat();
      expect(new Set(handler.routes.map((route) => route.path)), name).toEqual(new Set(paths));
      for (const route of handler.routes) {
        if (!route.open) expect(tested, name).toContain(`${route.method} ${route.path}`);
      }
    }
  });

  test('a path is matched as Netlify matches it: any case, a trailing slash ignored, parts decoded', () => {
    expect(paramsOf('/api/records/waivers/:id/pdf', '/API/Records/waivers/a%20b/pdf/')).toEqual({
      id: 'a b',
    });
    expect(paramsOf('/api/records/waivers/:id', '/api/records/waivers/a/pdf')).toBeUndefined();
    expect(paramsOf('/api/records/waivers/:id', '/api/records/waivers/%E0%A4%A')).toBeUndefined();
  });

  test('a function whose paths and handlers do not pair up does not load', () => {
    expect(() => deskFunction({ path: ['/api/records/a', '/api/records/b'] }, [{}])).toThrow(
      'config.path has 2 paths but 1 are handled',
    );
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
    const cookie = first.headers.get('set-cookie')!;
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
  test('20 requests from one client in a minute: the ones past its limit get 429 with Retry-After', async () => {
    vi.stubEnv('SIGN_IN_RATE_LIMIT', '');
    vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        desk('/api/records/sign-in', { body: { email: `visitor${i}@example.test` } }),
      ),
    );
    const statuses = answers.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    const refused = answers.find((response) => response.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).error).toMatch(/^Too many sign-in links have been asked for/);
  });

  test('20 requests for one address from many clients: the ones past its limit get 429', async () => {
    vi.stubEnv('SIGN_IN_RATE_LIMIT', '');
    vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '');
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        desk('/api/records/sign-in', { body: { email: STAFF }, ip: `192.0.2.${i + 1}` }).then(
          (response) => response.status,
        ),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    await env.smtp.waitForMails(5);
    expect(env.smtp.mails).toHaveLength(5);
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
    const request = deskRequest('/api/records/sign-in', { body: { email: STAFF } });
    const forged = new Request(request.url.replace(ORIGIN, 'http://evil.example'), {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ email: STAFF }),
    });
    expect((await functionFor('/api/records/sign-in')(forged)).status).toBe(200);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0]!.text).toContain('https://stillpoint.example/records/sign-in#token=');
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
