import { createHash, randomBytes } from 'node:crypto';
import { decryptField, encryptField } from './crypto';

/**
 * Every token of the site (sign-in links, sessions, kiosks, a booking's manage link, the list's
 * links, re-sign links) is 32 random bytes (base64url, 43 characters). The database
 * keeps only their SHA-256: enough to recognise a token, useless to anyone who reads the table.
 * (A plain hash suffices: 256 random bits cannot be guessed from it, unlike a password.)
 */
export const newToken = () => randomBytes(32).toString('base64url');

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export const isToken = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);

/**
 * A link token made once and kept by its row: the row stores its SHA-256 (to find the row by it)
 * and the token sealed with the site's key, bound to the row and the column (`encryptField`), so a
 * mail composed later carries the same link whatever key the site uses by then; `npm run
 * rotate-key` re-seals them. Never a token derived from the key, which would change with it.
 */
export interface StoredToken {
  sealed: string;
  sha256: string;
}

/** A new token for row `id`: the token, and what the row stores of it. */
export function newStoredToken(field: string, id: string): StoredToken & { token: string } {
  const token = newToken();
  return { token, sealed: encryptField(token, field, id), sha256: tokenHash(token) };
}

/**
 * The token a row holds, opened with whichever given key sealed it. Throws when no given key
 * opens it, or it is not the one the row is found by: no mail goes out with a link that opens
 * nothing.
 */
export function openStoredToken(field: string, id: string, stored: StoredToken): string {
  const token = decryptField(stored.sealed, field, id);
  if (tokenHash(token) !== stored.sha256) throw new Error(`${field} of ${id} does not match`);
  return token;
}
