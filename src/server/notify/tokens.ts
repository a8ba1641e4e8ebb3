/**
 * The tokens of the list's links. Each is an HMAC of its row's id (`keyedToken`), so a mail
 * retried or composed later carries the same link without any secret being stored; the database
 * keeps only the token's SHA-256, to find the row.
 */
import { keyedToken } from '../platform/crypto';
import { tokenHash } from '../auth/tokens';

export const confirmToken = (confirmationId: string) => keyedToken('list-confirm', confirmationId);
export const unsubscribeToken = (subscriberId: string) =>
  keyedToken('list-unsubscribe', subscriberId);

export { tokenHash };
