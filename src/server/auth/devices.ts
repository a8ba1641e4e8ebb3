import type { Queryable } from '../platform/db';
import { query } from '../platform/db';
import { sqlNow } from '../platform/clock';
import { cookieIn, sessionCookie } from './sessions';
import { isToken, newToken, tokenHash } from '../platform/tokens';

/**
 * Devices the desk was signed in on. At each sign-in the browser gets a long-lived cookie with a
 * random token (HttpOnly, SameSite=Strict, `__Host-` like the session's); the database keeps only
 * its SHA-256 and the address that signed in. It opens nothing: it only tells the sign-in limits
 * (sign-in.ts) that a request for that address comes from a device she has used before, which
 * strangers' requests then cannot hold back. "Sign out everywhere" forgets every device.
 */
export const DEVICE_DAYS = 400;

/** The cookie's name: `__Host-desk-device` wherever the session's is `__Host-desk`. */
function deviceCookieName(req: Request): string {
  return sessionCookie(req).secure ? '__Host-desk-device' : 'desk-device';
}

/** The known device this request comes from, for `email`: its token's hash, else `undefined`. */
export async function knownDevice(req: Request, email: string): Promise<string | undefined> {
  const token = cookieIn(req, deviceCookieName(req));
  if (!isToken(token)) return undefined;
  const [row] = await query<{ token_sha256: string }>(
    `UPDATE staff_devices SET last_used_at = ${sqlNow()}
      WHERE token_sha256 = $1 AND email = $2
        AND last_used_at > ${sqlNow()} - make_interval(days => $3::int)
  RETURNING token_sha256`,
    [tokenHash(token), email, DEVICE_DAYS],
  );
  return row?.token_sha256;
}

/**
 * Remembers the device `email` just signed in on, in the caller's transaction: the same device
 * signing in again as the same person keeps its token; any other gets a new one. Returns the
 * `Set-Cookie` that keeps it for DEVICE_DAYS.
 */
export async function rememberDevice(tx: Queryable, req: Request, email: string): Promise<string> {
  const name = deviceCookieName(req);
  const current = cookieIn(req, name);
  let token: string | undefined;
  if (isToken(current)) {
    const { rows } = await tx.query(
      `UPDATE staff_devices SET last_used_at = ${sqlNow()}
        WHERE token_sha256 = $1 AND email = $2 RETURNING token_sha256`,
      [tokenHash(current), email],
    );
    if (rows.length > 0) token = current;
  }
  if (!token) {
    token = newToken();
    await tx.query(
      `INSERT INTO staff_devices (token_sha256, email, created_at, last_used_at)
       VALUES ($1, $2, ${sqlNow()}, ${sqlNow()})`,
      [tokenHash(token), email],
    );
    // Devices unused for longer than their cookie lasts are of no use to anyone: forget them.
    await tx.query(
      `DELETE FROM staff_devices WHERE last_used_at < ${sqlNow()} - make_interval(days => $1::int)`,
      [DEVICE_DAYS],
    );
  }
  return deviceCookie(req, token);
}

/** "Sign out everywhere": every device of this person is a stranger again. */
export async function forgetDevices(tx: Queryable, email: string): Promise<void> {
  await tx.query(`DELETE FROM staff_devices WHERE email = $1`, [email]);
}

/** The device asking is no longer one she signs in on (it became the waiver kiosk). */
export async function forgetThisDevice(tx: Queryable, req: Request): Promise<void> {
  const token = cookieIn(req, deviceCookieName(req));
  if (isToken(token)) {
    await tx.query(`DELETE FROM staff_devices WHERE token_sha256 = $1`, [tokenHash(token)]);
  }
}

/** `Set-Cookie` for the device `token`, or one that deletes the cookie (no token). */
export function deviceCookie(req: Request, token?: string): string {
  const { secure } = sessionCookie(req);
  return [
    `${deviceCookieName(req)}=${token ?? ''}`,
    'Path=/',
    `Max-Age=${token ? DEVICE_DAYS * 86_400 : 0}`,
    'HttpOnly',
    ...(secure ? ['Secure'] : []),
    'SameSite=Strict',
  ].join('; ');
}
