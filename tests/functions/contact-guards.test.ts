import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import sendEmail from '../../functions/send-email';
import { useFunctionEnv } from '../fixtures/function-env';
import { jsonPost, streamOf } from './harness';

const ENDPOINT = 'http://127.0.0.1:8888/api/send-email';
const CAP = 32 * 1024;

// A database of this file's own and the SMTP server, both emptied before each test.
const env = useFunctionEnv();

beforeEach(() => {
  process.env.CONTACT_TO = 'studio-inbox@example.test';
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const valid = {
  name: 'Grace Hopper',
  email: 'grace@example.test',
  service: 'small-group',
  message: 'Is there room in the Tuesday class? My lower back is stiff.',
  website: '',
  fillTimeMs: 9_000,
};

const post = (body: unknown, headers: Record<string, string> = {}, ip?: string) =>
  sendEmail(jsonPost(ENDPOINT, body, headers), ip ? ({ ip } as never) : undefined);

async function messages() {
  const { rows } = await env.db.query<{
    id: string;
    message: string;
    spam_reason: string | null;
  }>('SELECT * FROM contact_messages ORDER BY id');
  return rows;
}

async function expectRejected(response: Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  expect(await response.json()).toEqual({ success: false, error: expect.any(String) });
  expect(await messages()).toEqual([]);
  expect(env.smtp.mails).toEqual([]);
}

// Mails are counted without waiting: a function called here without `waitUntil` sends before it
// answers, and the test SMTP server has a mail in `mails` before it accepts it.

describe('only the site itself may post', () => {
  test.each([
    ['another site', { origin: 'https://evil.example' }],
    ['an opaque origin (a sandboxed frame or a file)', { origin: 'null' }],
    ['the same host on another port', { origin: 'http://127.0.0.1:8080' }],
    ['the site over another scheme', { origin: 'https://127.0.0.1:8888' }],
    ['no Origin and a cross-site fetch', { origin: '', 'sec-fetch-site': 'cross-site' }],
    ['no Origin and no fetch metadata (curl, a script)', { origin: '' }],
  ])('a POST from %s gets 403, no row and no mail', async (_, headers) => {
    const request = jsonPost(ENDPOINT, valid, headers);
    if (!headers.origin) request.headers.delete('origin');
    await expectRejected(await sendEmail(request), 403);
  });

  test('a POST with no Origin but Sec-Fetch-Site: same-origin is accepted', async () => {
    const request = jsonPost(ENDPOINT, valid, { 'sec-fetch-site': 'same-origin' });
    request.headers.delete('origin');
    expect((await sendEmail(request)).status).toBe(200);
  });

  test('without SITE_URL, a POST whose Host and Origin both name another site gets 403', async () => {
    // A request's own Host is the visitor's to write: it never makes an origin acceptable.
    const request = jsonPost('http://evil.example/api/send-email', valid);
    expect(request.headers.get('origin')).toBe('http://evil.example');
    await expectRejected(await sendEmail(request), 403);
  });

  test('the configured site address is accepted when the function sees another host', async () => {
    vi.stubEnv('SITE_URL', 'https://stillpointpilates.studio');
    vi.stubEnv('DEPLOY_PRIME_URL', 'https://deploy-preview-7--stillpoint.netlify.app');
    for (const origin of [
      'https://stillpointpilates.studio',
      'https://deploy-preview-7--stillpoint.netlify.app',
    ]) {
      expect((await post(valid, { origin })).status).toBe(200);
    }
    expect(await messages()).toHaveLength(2);
  });
});

describe('only a body of sane size, as JSON or a plain form post in UTF-8, is read', () => {
  test('a body declared larger than 32 KB gets 413 before a byte of it is read', async () => {
    let pulled = 0;
    const body = streamOf(() => {
      pulled += 1;
      return new Uint8Array(1024).fill(0x20);
    });
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers: {
        origin: 'http://127.0.0.1:8888',
        'content-type': 'application/json',
        'content-length': String(CAP + 1),
      },
      body,
      duplex: 'half',
    } as RequestInit);
    await expectRejected(await sendEmail(request), 413);
    expect(pulled).toBeLessThanOrEqual(1);
  });

  test('a streamed body with no length stops being read at the cap: 413', async () => {
    let pulled = 0;
    // An endless body: a server that read it all would never answer.
    const body = streamOf(() => {
      pulled += 1;
      return new TextEncoder().encode(pulled === 1 ? '{"name":"' : 'x'.repeat(1024));
    });
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers: { origin: 'http://127.0.0.1:8888', 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    await expectRejected(await sendEmail(request), 413);
    expect(pulled).toBeLessThan(CAP / 1024 + 4);
  });

  test('a body of exactly 32 KB is read; one byte more gets 413', async () => {
    const json = JSON.stringify(valid);
    const atCap = json.slice(0, -1) + ' '.repeat(CAP - json.length) + '}';
    expect(Buffer.byteLength(atCap)).toBe(CAP);
    expect((await post(atCap)).status).toBe(200);
    await env.smtp.waitForMails(1);
    await env.clear();
    env.smtp.mails.length = 0;
    await expectRejected(await post(`${atCap} `), 413);
  });

  test.each([
    ['text/plain', '415'],
    ['application/json; charset=iso-8859-1', '415'],
    ['multipart/form-data; boundary=x', '415'],
    ['application/jsonp', '415'],
  ])('a body sent as %s gets %s', async (type) => {
    await expectRejected(await post(valid, { 'content-type': type }), 415);
  });

  test('a body that is not UTF-8 gets 400', async () => {
    const request = jsonPost(ENDPOINT, '');
    const bytes = Buffer.from('{"name":"\xff\xfe"}', 'latin1');
    await expectRejected(
      await sendEmail(new Request(request, { body: bytes, duplex: 'half' } as RequestInit)),
      400,
    );
  });
});

describe('fields longer than their caps', () => {
  test.each([
    ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
    ['an e-mail of 255 characters', { email: `${'e'.repeat(243)}@example.test` }, 'email'],
    ['a message of 5001 characters', { message: 'm'.repeat(5001) }, 'message'],
    ['a message of 5001 emoji', { message: '🧘'.repeat(5001) }, 'message'],
  ])('%s gets 422 naming the field', async (_, change, field) => {
    const response = await post({ ...valid, ...change });
    expect(response.status).toBe(422);
    expect((await response.json()).fieldErrors[field]).toMatch(/keep|valid/i);
    expect(await messages()).toEqual([]);
  });
});

describe('rate limits per client', () => {
  test('the fourth message in the window from one IP gets 429 with Retry-After; another IP still gets through', async () => {
    vi.stubEnv('CONTACT_RATE_LIMIT', '3/10m');
    for (let i = 0; i < 3; i += 1) {
      expect((await post(valid, {}, '203.0.113.7')).status).toBe(200);
    }
    const limited = await post(valid, {}, '203.0.113.7');
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(await limited.json()).toEqual({
      success: false,
      error: expect.stringMatching(
        /^Too many messages .* Please try again in \d+ (second|minute)s?\.$/,
      ),
    });
    expect(await messages()).toHaveLength(3);

    expect((await post(valid, {}, '198.51.100.20')).status).toBe(200);
    expect(await messages()).toHaveLength(4);
  });

  test('an IPv6 client is counted by its /64: its neighbours in that network share its limit, the next network does not', async () => {
    vi.stubEnv('CONTACT_RATE_LIMIT', '2/10m');
    // One machine, or one home, gets a whole /64 and can pick any address in it.
    for (const ip of ['2001:db8:a:b::1', '2001:db8:a:b:ffff:ffff:ffff:ffff']) {
      expect((await post(valid, {}, ip)).status, ip).toBe(200);
    }
    for (const ip of [
      '2001:0db8:000a:000b:0:0:0:2',
      '2001:DB8:A:B::abcd',
      '2001:db8:a:b::5%eth0',
    ]) {
      expect((await post(valid, {}, ip)).status, ip).toBe(429);
    }
    expect((await post(valid, {}, '2001:db8:a:c::1')).status).toBe(200);
    // An IPv4 address written as IPv6 is that IPv4 address, counted alone.
    expect((await post(valid, {}, '::ffff:192.0.2.7')).status).toBe(200);
    expect((await post(valid, {}, '::ffff:192.0.2.8')).status).toBe(200);
    expect(await messages()).toHaveLength(5);
  });

  test("Netlify's client IP header is used when there is no context", async () => {
    vi.stubEnv('CONTACT_RATE_LIMIT', '1/1h');
    const from = (ip: string) => post(valid, { 'x-nf-client-connection-ip': ip });
    expect((await from('192.0.2.1')).status).toBe(200);
    const limited = await from('192.0.2.1');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(3_600);
    expect((await from('192.0.2.2')).status).toBe(200);
  });

  test('a CONTACT_RATE_LIMIT that cannot be read is said in the log, naming it, and nothing is stored', async () => {
    vi.stubEnv('CONTACT_RATE_LIMIT', 'plenty');
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await post(valid);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      success: false,
      error: 'Your message could not be saved. Please try again.',
    });
    expect(errors.mock.calls.flat().join('\n')).toContain(
      'Configuration: CONTACT_RATE_LIMIT must be a count per time, like 5/10m, 20/1h or 100/30s (got "plenty")',
    );
    expect(await messages()).toEqual([]);
  });

  test('the counter keeps a keyed hash of the IP, never the address', async () => {
    await post(valid, {}, '203.0.113.99');
    const { rows } = await env.db.query<Record<string, unknown>>('SELECT * FROM rate_limit_hits');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ bucket: 'contact', hits: 1 });
    expect(JSON.stringify(rows)).not.toContain('203.0.113.99');
    expect(rows[0].client_hash).toMatch(/^[\w-]{43}$/);
  });

  test('requests refused before the counter (wrong origin, method) do not use up the limit', async () => {
    vi.stubEnv('CONTACT_RATE_LIMIT', '1/1h');
    await post(valid, { origin: 'https://evil.example' }, '203.0.113.5');
    await sendEmail(new Request(ENDPOINT), { ip: '203.0.113.5' } as never);
    expect((await post(valid, {}, '203.0.113.5')).status).toBe(200);
  });
});

describe('spam', () => {
  test.each([
    ['the honeypot is filled in', { website: 'https://cheap-pills.example' }, 'honeypot'],
    ['the form was sent within 3 seconds', { fillTimeMs: 800 }, 'too-fast'],
    ['the time trap is missing', { fillTimeMs: undefined }, 'no-timer'],
    ['the time trap is not a number', { fillTimeMs: '9000' }, 'no-timer'],
  ])(
    'when %s it is answered as sent, stored marked as spam, and not mailed',
    async (_, change, reason) => {
      vi.spyOn(console, 'info').mockImplementation(() => undefined);
      const response = await post({ ...valid, ...change });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ success: true, id: expect.any(String) });
      const [row] = await messages();
      expect(row).toMatchObject({ spam_reason: reason });
      expect(row.message).toBe(valid.message);
      // Nothing owed: no mail is queued for a retry to send later either.
      const { rows: queued } = await env.db.query('SELECT id FROM mail_outbox');
      expect(queued).toEqual([]);
      expect(env.smtp.mails).toEqual([]);
    },
  );

  test('a message sent after 3 seconds with an empty honeypot is not spam', async () => {
    expect((await post({ ...valid, fillTimeMs: 3_000 })).status).toBe(200);
    expect((await messages())[0].spam_reason).toBeNull();
    await env.smtp.waitForMails(1);
  });

  test('the instructor can list the spam for review', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    await post(valid);
    await post({ ...valid, website: 'x' });
    const { rows } = await env.db.query(
      `SELECT name, spam_reason FROM contact_messages WHERE spam_reason IS NOT NULL
       ORDER BY created_at DESC`,
    );
    expect(rows).toEqual([{ name: valid.name, spam_reason: 'honeypot' }]);
  });
});

describe('logs', () => {
  test('never hold the message or the whole form, whatever happens to it', async () => {
    const lines: unknown[][] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args) => void lines.push(args));
    }
    vi.stubEnv('CONTACT_RATE_LIMIT', '2/1h');
    await post(valid, {}, '203.0.113.50');
    await post({ ...valid, website: 'spam' }, {}, '203.0.113.50');
    await post(valid, {}, '203.0.113.50');
    await post({ ...valid, email: 'broken' });
    env.smtp.setFailing(true);
    await post(valid, {}, '203.0.113.51');
    env.smtp.setFailing(false);
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain('lower back');
    expect(logged).not.toContain(valid.email);
    expect(logged).not.toContain('Grace');
  });
});

describe('every answer of the function', () => {
  test.each([
    ['a success', () => post(valid)],
    ['a refusal', () => post(valid, { origin: 'https://evil.example' })],
    ['a validation error', () => post({})],
  ])('%s carries the security headers', async (_, send) => {
    const response = await send();
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=\d{8,}/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBeTruthy();
    expect(response.headers.get('permissions-policy')).toBeTruthy();
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});
