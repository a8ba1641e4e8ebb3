import { createHash, randomBytes } from 'node:crypto';

/**
 * Sign-in links and sessions carry 32 random bytes (base64url, 43 characters). The database
 * keeps only their SHA-256: enough to recognise a token, useless to anyone who reads the table.
 * (A plain hash suffices: 256 random bits cannot be guessed from it, unlike a password.)
 */
export const newToken = () => randomBytes(32).toString('base64url');

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export const isToken = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
