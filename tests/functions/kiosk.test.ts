/**
 * The studio's waiver kiosk through the functions: turned on from the desk (a device cookie whose
 * token the database keeps hashed), exempt from WAIVER_RATE_LIMIT while an ordinary device at the
 * same address is held to it, and an ordinary device again once turned off. Real PostgreSQL.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import submitWaiver from '../../functions/submit-waiver';
import waiverKiosk from '../../functions/waiver-kiosk';
import type { KioskRow, LogRow, Page } from '../../src/shared/desk-api';
import { tokenHash } from '../../src/server/platform/tokens';
import { useFunctionEnv } from '../fixtures/function-env';
import { waiverBody } from '../fixtures/submissions';
import { desk, DESK_FUNCTIONS, linkToken, ORIGIN, signIn, signWaiver, STAFF } from './desk';

const env = useFunctionEnv();
const ADDRESS = '203.0.113.40';

beforeEach(() => {
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_RATE_LIMIT', '3/10m');
  vi.stubEnv('WAIVER_COPY_LIMIT', '1000/1h');
});
afterEach(() => vi.unstubAllEnvs());

/** A waiver from ADDRESS, with the device's cookies if any; the answer's status. */
async function sign(n: number, cookie?: string): Promise<number> {
  const response = await submitWaiver(
    new Request(`${ORIGIN}/api/submit-waiver`, {
      method: 'POST',
      headers: {
        origin: ORIGIN,
        'content-type': 'application/json',
        ...(cookie && { cookie }),
      },
      body: JSON.stringify(waiverBody({ email: `signer${n}@example.test` })),
    }),
    { ip: ADDRESS } as never,
  );
  return response.status;
}

/** The cookies an answer sets (those it deletes are not kept, as a browser would not). */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .filter((cookie) => !/Max-Age=0/.test(cookie))
    .map((cookie) => cookie.split(';')[0]!)
    .join('; ');

test('a kiosk signs past WAIVER_RATE_LIMIT while an ordinary device at its address is held to it; turned off, it is ordinary again', async () => {
  const session = await signIn(env.smtp);
  const on = await desk('/api/records/kiosks', {
    body: { label: 'Front desk tablet' },
    cookie: session,
  });
  expect(on.status).toBe(200);
  const setCookies = on.headers.getSetCookie();
  expect(setCookies.find((c) => c.startsWith('__Host-waiver-kiosk-token='))).toMatch(
    /HttpOnly.*|.*HttpOnly/,
  );
  expect(setCookies.find((c) => c.startsWith('waiver-kiosk=on'))).not.toMatch(/HttpOnly/);
  const kiosk = cookiesOf(on);
  const token = /__Host-waiver-kiosk-token=([\w-]+)/.exec(kiosk)![1]!;
  const { rows } = await env.db.query<{ token_sha256: string }>(
    `SELECT token_sha256 FROM waiver_kiosks`,
  );
  expect(rows).toHaveLength(1);
  expect(rows[0]!.token_sha256).not.toContain(token);
  expect(rows[0]!.token_sha256).toBe(tokenHash(token));

  const asked = await waiverKiosk(
    new Request(`${ORIGIN}/api/waiver/kiosk`, { headers: { cookie: kiosk } }),
  );
  expect(await asked.json()).toEqual({ success: true, kiosk: true });

  const kioskStatuses: number[] = [];
  for (let n = 0; n < 8; n++) kioskStatuses.push(await sign(n, kiosk));
  expect(kioskStatuses).toEqual(Array(8).fill(200));

  const visitor: number[] = [];
  for (let n = 10; n < 14; n++) visitor.push(await sign(n));
  expect(visitor).toEqual([200, 200, 200, 429]);
  expect(await env.count('waivers')).toBe(11);

  // Turning the kiosk on ended the desk session that asked: she turns it off from another device.
  expect((await desk('/api/records/kiosks', { cookie: session })).status).toBe(401);
  const phone = await signIn(env.smtp);
  const { items } = (await (await desk('/api/records/kiosks', { cookie: phone })).json()) as {
    items: KioskRow[];
  };
  expect(items).toMatchObject([
    { label: 'Front desk tablet', createdBy: STAFF, thisDevice: false },
  ]);
  const off = await desk(`/api/records/kiosks/${items[0]!.id}/off`, { body: {}, cookie: phone });
  expect(off.status).toBe(200);
  expect(await env.count('waiver_kiosks')).toBe(0);

  expect(await sign(20, kiosk)).toBe(429);
  const after = await waiverKiosk(
    new Request(`${ORIGIN}/api/waiver/kiosk`, { headers: { cookie: kiosk } }),
  );
  expect(await after.json()).toEqual({ success: true, kiosk: false });
  expect(after.headers.getSetCookie().some((c) => /^waiver-kiosk=;.*Max-Age=0/.test(c))).toBe(true);

  const log = (await (await desk('/api/records/log', { cookie: phone })).json()) as Page<LogRow>;
  const kioskActions = log.items.map((row) => row.action).filter((a) => a.startsWith('kiosk'));
  expect(kioskActions).toEqual(['kiosk-off', 'kiosk-on']);
});

test('a forged kiosk cookie is an ordinary device', async () => {
  const forged = `__Host-waiver-kiosk-token=${'A'.repeat(43)}; waiver-kiosk=on`;
  const statuses: number[] = [];
  for (let n = 0; n < 4; n++) statuses.push(await sign(n, forged));
  expect(statuses).toEqual([200, 200, 200, 429]);
});

test('a kiosk needs a name, and turning one off that is not there is a 404', async () => {
  const session = await signIn(env.smtp);
  const unnamed = await desk('/api/records/kiosks', { body: { label: ' ' }, cookie: session });
  expect(unnamed.status).toBe(422);
  expect(await env.count('waiver_kiosks')).toBe(0);
  const missing = await desk('/api/records/kiosks/0123456789abcdef/off', {
    body: {},
    cookie: session,
  });
  expect(missing.status).toBe(404);
});

/** Every desk path and method, with its `:name` parts filled in. */
function everyDeskRequest(ids: Record<string, string>) {
  return DESK_FUNCTIONS.flatMap(({ handler }) =>
    handler.routes.map(({ method, path, open }) => ({
      method,
      open,
      path: path.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? ids.id!),
    })),
  );
}

test('turning a device into the kiosk ends its desk session: no desk route answers 2xx from it, whatever cookies it still presents', async () => {
  const waiverId = await signWaiver({ medicalConditions: 'Old knee injury of the last signer' });
  const session = await signIn(env.smtp);
  const on = await desk('/api/records/kiosks', { body: { label: 'Tablet' }, cookie: session });
  expect(on.status).toBe(200);
  // The answer deletes the desk's cookie on this device, and the session is over server-side.
  expect(on.headers.getSetCookie().some((c) => /^__Host-desk=;.*Max-Age=0/.test(c))).toBe(true);
  const kiosk = cookiesOf(on);
  const { rows } = await env.db.query<{ revoked_at: Date | null }>(
    `SELECT revoked_at FROM staff_sessions`,
  );
  expect(rows.map((row) => row.revoked_at !== null)).toEqual([true]);

  // A browser that kept the old cookie anyway, or the kiosk's alone, or both: every route that
  // needs a session is refused, and the health of the last signer is never in an answer.
  const [{ token_sha256: kioskHash }] = (
    await env.db.query<{ token_sha256: string }>(`SELECT token_sha256 FROM waiver_kiosks`)
  ).rows as [{ token_sha256: string }];
  const ids = { id: waiverId, token: 'x'.repeat(43), kind: 'waiver' };
  for (const cookie of [`${kiosk}; ${session}`, kiosk, session]) {
    for (const { method, path, open } of everyDeskRequest(ids)) {
      // Without the kiosk's cookie, asking for a sign-in link is open to anyone, as ever.
      if (open && cookie === session) continue;
      const answer = await desk(path, {
        method,
        cookie,
        ...(method === 'POST' && { body: {} }),
      });
      expect(
        answer.status,
        `${method} ${path} with ${cookie.split('=')[0]}`,
      ).toBeGreaterThanOrEqual(400);
      expect(await answer.text()).not.toContain('Old knee injury');
    }
  }
  const health = await desk(`/api/records/participants/${waiverId}/health`, {
    cookie: `${kiosk}; ${session}`,
  });
  expect(health.status).toBe(403);
  expect(await health.json()).toMatchObject({ success: false, reason: 'kiosk' });
  expect(kioskHash).toHaveLength(64);

  // A new session started elsewhere and carried onto the kiosk is refused there, and ended.
  const phone = await signIn(env.smtp);
  const carried = await desk('/api/records/session', { cookie: `${kiosk}; ${phone}` });
  expect(carried.status).toBe(403);
  expect((await desk('/api/records/session', { cookie: phone })).status).toBe(401);
});

test('a sign-in link followed on a kiosk is not spent until she says the kiosk may go; then the kiosk is off and she is in', async () => {
  const session = await signIn(env.smtp);
  const on = await desk('/api/records/kiosks', { body: { label: 'Tablet' }, cookie: session });
  const kiosk = cookiesOf(on);

  // On the kiosk not even a link can be asked for: she asks on her phone and opens it here.
  const before = env.smtp.mails.length;
  const refused = await desk('/api/records/sign-in', { body: { email: STAFF }, cookie: kiosk });
  expect(refused.status).toBe(403);
  expect((await desk('/api/records/sign-in', { body: { email: STAFF } })).status).toBe(200);
  await env.smtp.waitForMails(before + 1);
  expect(env.smtp.mails.length).toBe(before + 1);
  const token = linkToken(env.smtp);

  const asked = await desk('/api/records/session', { body: { token }, cookie: kiosk });
  expect(asked.status).toBe(409);
  expect(await asked.json()).toMatchObject({ success: false, reason: 'kiosk' });
  expect(asked.headers.getSetCookie()).toEqual([]);
  expect(await env.count('waiver_kiosks')).toBe(1);

  const agreed = await desk('/api/records/session', {
    body: { token, endKiosk: true },
    cookie: kiosk,
  });
  expect(agreed.status).toBe(200);
  expect(await env.count('waiver_kiosks')).toBe(0);
  const set = agreed.headers.getSetCookie();
  expect(set.some((c) => /^__Host-waiver-kiosk-token=;.*Max-Age=0/.test(c))).toBe(true);
  expect(set.some((c) => /^waiver-kiosk=;.*Max-Age=0/.test(c))).toBe(true);
  const desked = set[0]!.split(';')[0]!;
  expect((await desk('/api/records/session', { cookie: `${kiosk}; ${desked}` })).status).toBe(200);
  expect(await sign(1, kiosk)).toBe(200);
  const asKiosk = await waiverKiosk(
    new Request(`${ORIGIN}/api/waiver/kiosk`, { headers: { cookie: kiosk } }),
  );
  expect(await asKiosk.json()).toEqual({ success: true, kiosk: false });
});
