/**
 * Waiver kiosks: a device the signed-in desk turned into the studio's signing tablet. The device
 * gets a long-lived HttpOnly cookie with a random token (the database keeps its SHA-256 only),
 * and a readable cookie `waiver-kiosk=on` that only tells the form to offer no autofill and to
 * clear itself after each signature; the form asks the server whether the device really is a
 * kiosk (`kioskOf`) once it runs. A kiosk's waivers are exempt from WAIVER_RATE_LIMIT (a class
 * signs in a row from one address); every other check still applies. Turned off on the desk: the
 * row is deleted, and its token opens nothing from then on.
 *
 * A kiosk is a device no member of the studio is signed in on: turning one on ends the desk
 * session that asked (and forgets the device as hers), the desk refuses every request from a
 * kiosk (records/router.ts), and signing in on one turns it off first (records/apps/session.ts).
 */
import type { KioskRow } from '../../shared/desk-api';
import type { Staff } from '../auth/sessions';
import { cookieIn, endSession, sessionCookie, setSessionCookie } from '../auth/sessions';
import { deviceCookie, forgetThisDevice } from '../auth/devices';
import { isToken, newToken, tokenHash } from '../platform/tokens';
import { sqlNow } from '../platform/clock';
import { query, type Queryable } from '../platform/db';

export const KIOSK_DAYS = 400;

/** The readable marker the page's script looks at (no secret in it). */
export const KIOSK_MARKER = 'waiver-kiosk';

function kioskCookieName(req: Request): { name: string; secure: boolean } {
  const { secure } = sessionCookie(req);
  return { name: secure ? '__Host-waiver-kiosk-token' : 'waiver-kiosk-token', secure };
}

/** Whether the request carries a kiosk token at all (no database asked): the cheap first check. */
export const carriesKioskToken = (req: Request): boolean =>
  isToken(cookieIn(req, kioskCookieName(req).name));

/**
 * The kiosk this request comes from (its token's hash), or `undefined` for any other device.
 * `signing`: the request is a waiver, which the desk shows as the kiosk's last use.
 */
export async function kioskOf(
  req: Request,
  { signing = false }: { signing?: boolean } = {},
): Promise<string | undefined> {
  const token = cookieIn(req, kioskCookieName(req).name);
  if (!isToken(token)) return undefined;
  const [row] = signing
    ? await query<{ token_sha256: string }>(
        `UPDATE waiver_kiosks SET last_used_at = ${sqlNow()} WHERE token_sha256 = $1
         RETURNING token_sha256`,
        [tokenHash(token)],
      )
    : await query<{ token_sha256: string }>(
        `SELECT token_sha256 FROM waiver_kiosks WHERE token_sha256 = $1`,
        [tokenHash(token)],
      );
  return row?.token_sha256;
}

function cookies(req: Request, token: string | undefined): string[] {
  const { name, secure } = kioskCookieName(req);
  const age = `Max-Age=${token ? KIOSK_DAYS * 86_400 : 0}`;
  const flags = ['Path=/', age, 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  return [
    [`${name}=${token ?? ''}`, ...flags, 'HttpOnly'].join('; '),
    [`${KIOSK_MARKER}=${token ? 'on' : ''}`, ...flags].join('; '),
  ];
}

/**
 * Turns the requesting device into a kiosk, in the caller's transaction: the kiosk's row, and the
 * end of the desk session that asked, so whoever picks the device up next finds no desk on it.
 * Returns the `Set-Cookie`s that make it a kiosk and delete the session's and the device's.
 */
export async function turnOnKiosk(
  tx: Queryable,
  req: Request,
  staff: Staff,
  label: string,
): Promise<string[]> {
  const token = newToken();
  await tx.query(
    `INSERT INTO waiver_kiosks (token_sha256, label, created_by, created_at)
     VALUES ($1, $2, $3, ${sqlNow()})`,
    [tokenHash(token), label, staff.email],
  );
  await endSession(tx, staff);
  await forgetThisDevice(tx, req);
  return [...cookies(req, token), setSessionCookie(req), deviceCookie(req)];
}

/** The `Set-Cookie`s that make this device an ordinary one again. */
export const forgetKioskCookies = (req: Request) => cookies(req, undefined);

/** A kiosk's id on the desk: the first 16 characters of its token's hash. */
export const kioskId = (tokenSha256: string) => tokenSha256.slice(0, 16);

export async function listKiosks(req: Request): Promise<KioskRow[]> {
  const mine = await kioskOf(req);
  const rows = await query<{
    token_sha256: string;
    label: string;
    created_by: string;
    created_at: Date;
    last_used_at: Date | null;
  }>(`SELECT * FROM waiver_kiosks ORDER BY created_at DESC`);
  return rows.map((row) => ({
    id: kioskId(row.token_sha256),
    label: row.label,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at).toISOString() : null,
    thisDevice: row.token_sha256 === mine,
  }));
}

/** Turns a kiosk off by its id (the first 16 characters of its token's hash). */
export async function turnOffKiosk(id: string): Promise<boolean> {
  if (!/^[0-9a-f]{16}$/.test(id)) return false;
  const rows = await query(
    `DELETE FROM waiver_kiosks WHERE left(token_sha256, 16) = $1 RETURNING 1`,
    [id],
  );
  return rows.length > 0;
}

/** Turns off the kiosk whose token's hash is `tokenSha256` (this device), in the caller's transaction. */
export async function turnOffThisKiosk(tx: Queryable, tokenSha256: string): Promise<void> {
  await tx.query(`DELETE FROM waiver_kiosks WHERE token_sha256 = $1`, [tokenSha256]);
}
