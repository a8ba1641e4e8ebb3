/**
 * The studio's waiver kiosk through the functions: turned on from the desk (a device cookie whose
 * token the database keeps hashed), exempt from WAIVER_RATE_LIMIT while an ordinary device at the
 * same address is held to it, and an ordinary device again once turned off. Real PostgreSQL.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import submitWaiver from '../../functions/submit-waiver';
import waiverKiosk from '../../functions/waiver-kiosk';
import type { KioskRow, LogRow, Page } from '../../src/shared/desk-api';
import { tokenHash } from '../../src/server/auth/tokens';
import { useFunctionEnv } from '../fixtures/function-env';
import { waiverBody } from '../fixtures/submissions';
import { desk, ORIGIN, signIn, STAFF } from './desk';

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

const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
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

  const { items } = (await (await desk('/api/records/kiosks', { cookie: session })).json()) as {
    items: KioskRow[];
  };
  expect(items).toMatchObject([
    { label: 'Front desk tablet', createdBy: STAFF, thisDevice: false },
  ]);
  const off = await desk(`/api/records/kiosks/${items[0]!.id}/off`, { body: {}, cookie: session });
  expect(off.status).toBe(200);
  expect(await env.count('waiver_kiosks')).toBe(0);

  expect(await sign(20, kiosk)).toBe(429);
  const after = await waiverKiosk(
    new Request(`${ORIGIN}/api/waiver/kiosk`, { headers: { cookie: kiosk } }),
  );
  expect(await after.json()).toEqual({ success: true, kiosk: false });
  expect(after.headers.getSetCookie().some((c) => /^waiver-kiosk=;.*Max-Age=0/.test(c))).toBe(true);

  const log = (await (await desk('/api/records/log', { cookie: session })).json()) as Page<LogRow>;
  expect(log.items.map((row) => row.action).slice(0, 2)).toEqual(['kiosk-off', 'kiosk-on']);
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
