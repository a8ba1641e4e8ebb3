/**
 * The tokens of the list's links: 32 random bytes each, made once. The row keeps the token's
 * SHA-256 (to find it) and the token sealed with the site's key, bound to the row and the column
 * (`encryptField`), so a mail composed later (a retry, every announcement) carries the same link
 * whatever key the site uses by then; `npm run rotate-key` re-seals them (key-rotation.ts).
 * The tokens themselves are the site's (platform/tokens.ts); these are the list's fields.
 */

/** The fields a sealed token is bound to, with its row's id. */
export const CONFIRM_TOKEN_FIELD = 'listConfirmToken';
export const UNSUBSCRIBE_TOKEN_FIELD = 'listUnsubscribeToken';
