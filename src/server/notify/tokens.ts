/**
 * The tokens of the list's links: 32 random bytes each, made once. The row keeps the token's
 * SHA-256 (to find it) and the token sealed with the site's key, bound to the row and the column
 * (`encryptField`), so a mail composed later (a retry, every announcement) carries the same link
 * whatever key the site uses by then; `npm run rotate-key` re-seals them (key-rotation.ts).
 */
import { newToken, tokenHash } from '../auth/tokens';
import { decryptField, encryptField } from '../platform/crypto';

/** The fields a sealed token is bound to, with its row's id. */
export const CONFIRM_TOKEN_FIELD = 'listConfirmToken';
export const UNSUBSCRIBE_TOKEN_FIELD = 'listUnsubscribeToken';

export interface StoredToken {
  sealed: string;
  sha256: string;
}

/** A new token for row `id`: what the row stores of it. */
export function newStoredToken(field: string, id: string): StoredToken {
  const token = newToken();
  return { sealed: encryptField(token, field, id), sha256: tokenHash(token) };
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

export { tokenHash };
