import { FRESH_SIGN_IN_MINUTES, IDLE_MINUTES, SESSION_HOURS } from '../../shared/desk-api';
import { query, type Queryable } from '../platform/db';
import { readSetting } from '../platform/settings';
import { isStaff } from './staff';
import { isToken, newToken, tokenHash } from '../platform/tokens';
import { now, sqlNow } from '../platform/clock';

/**
 * Desk sessions: a random token in an HttpOnly, SameSite=Strict cookie, its SHA-256 in
 * `staff_sessions`. A session ends after IDLE_MINUTES without a request (each request moves
 * `last_seen_at` on), and SESSION_HOURS after sign-in however busy she is. Its `created_at` is
 * the sign-in itself: an erasure or a health export asks for one under FRESH_SIGN_IN_MINUTES old.
 */
export interface Staff {
  sessionId: string;
  email: string;
  expiresAt: Date;
  /** Signed in under FRESH_SIGN_IN_MINUTES ago. */
  fresh: boolean;
}

/** Starts a session for `email` in the caller's transaction; returns the cookie's token. */
export async function startSession(
  tx: Queryable,
  email: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const { rows } = await tx.query(
    `INSERT INTO staff_sessions (token_sha256, email, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, ${sqlNow()}, ${sqlNow()}, ${sqlNow()} + make_interval(hours => $3::int))
  RETURNING expires_at`,
    [tokenHash(token), email, SESSION_HOURS],
  );
  // Sessions past their end go with the daily retention run (src/server/retention/rules.ts).
  return { token, expiresAt: new Date((rows[0] as { expires_at: Date }).expires_at) };
}

/**
 * The staff member a session token belongs to, while it is live (not signed out, not past its
 * end, used within IDLE_MINUTES) and they are still staff. Finding it is a use: its idle time
 * starts again.
 */
export async function findSession(token: string | undefined): Promise<Staff | undefined> {
  if (!isToken(token)) return undefined;
  const [row] = await query<{
    id: string | number;
    email: string;
    expires_at: Date;
    fresh: boolean;
  }>(
    `UPDATE staff_sessions SET last_seen_at = ${sqlNow()}
      WHERE token_sha256 = $1 AND revoked_at IS NULL AND expires_at > ${sqlNow()}
        AND last_seen_at > ${sqlNow()} - make_interval(mins => $2::int)
  RETURNING id, email, expires_at,
            created_at > ${sqlNow()} - make_interval(mins => $3::int) AS fresh`,
    [tokenHash(token), IDLE_MINUTES, FRESH_SIGN_IN_MINUTES],
  );
  if (!row || !isStaff(row.email)) return undefined;
  return {
    sessionId: String(row.id),
    email: row.email,
    expiresAt: new Date(row.expires_at),
    fresh: row.fresh,
  };
}

/** "Sign out": this session ends. */
export async function endSession(tx: Queryable, staff: Staff): Promise<void> {
  await tx.query(`UPDATE staff_sessions SET revoked_at = ${sqlNow()} WHERE id = $1`, [
    staff.sessionId,
  ]);
}

/** Ends the session `token` opens, if any (a session presented from a waiver kiosk). */
export async function endSessionOfToken(token: string | undefined): Promise<void> {
  if (!isToken(token)) return;
  await query(
    `UPDATE staff_sessions SET revoked_at = ${sqlNow()}
      WHERE token_sha256 = $1 AND revoked_at IS NULL`,
    [tokenHash(token)],
  );
}

/** "Sign out everywhere": every session of this person ends, and any link not yet used. */
export async function endEverySession(tx: Queryable, staff: Staff): Promise<void> {
  await tx.query(
    `UPDATE staff_sessions SET revoked_at = ${sqlNow()} WHERE email = $1 AND revoked_at IS NULL`,
    [staff.email],
  );
  await tx.query(
    `UPDATE staff_sign_in_links SET used_at = ${sqlNow()} WHERE email = $1 AND used_at IS NULL`,
    [staff.email],
  );
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The cookie's name and whether it is `Secure`. Browsers keep a `Secure` cookie only from a
 * secure origin: https, or the loopback address (http://localhost and http://127.0.0.1 count as
 * secure). There it is `__Host-desk`, which a browser accepts only with Secure, Path=/ and no
 * Domain, so no other host (a sibling subdomain) can set or shadow it. The request's own URL
 * decides, or `SITE_URL` when it is https on the same host (TLS ended by a proxy in front). Over
 * plain http on another host (a phone on the local network trying `npm start`) the cookie is
 * `desk`, without Secure, which such a page can keep.
 */
export function sessionCookie(req: Request): { name: string; secure: boolean } {
  const url = new URL(req.url);
  let secure = url.protocol === 'https:' || LOOPBACK.has(url.hostname);
  const site = readSetting('SITE_URL');
  if (!secure && site) secure = site.protocol === 'https:' && site.host === url.host;
  return secure ? { name: '__Host-desk', secure } : { name: 'desk', secure };
}

/** The value of the request's cookie `name`, if it carries one. */
export function cookieIn(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The session token the request carries in this site's cookie, if any. */
export function sessionToken(req: Request): string | undefined {
  return cookieIn(req, sessionCookie(req).name);
}

/** `Set-Cookie` for a new session (`token`), or one that deletes the cookie (no token). */
export function setSessionCookie(req: Request, token?: string, expiresAt?: Date): string {
  const { name, secure } = sessionCookie(req);
  const maxAge = token && expiresAt ? Math.max(0, Math.floor((+expiresAt - +now()) / 1000)) : 0;
  return [
    `${name}=${token ?? ''}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    ...(secure ? ['Secure'] : []),
    'SameSite=Strict',
  ].join('; ');
}
