-- The Get Notified list's link tokens, sealed (`enc2`, bound to the row and the column, like a
-- booking's manage token), so a mail composed later (a retry, each announcement) carries the
-- link first made, whatever key the site uses by then; `npm run rotate-key` re-seals them. The
-- tokens are 32 random bytes; their SHA-256 (`token_hash`, `unsubscribe_hash`) finds the row.
ALTER TABLE list_confirmations
  ADD COLUMN token_sealed text CHECK (token_sealed LIKE 'enc2:%');
ALTER TABLE list_subscribers
  ADD COLUMN unsubscribe_sealed text CHECK (unsubscribe_sealed LIKE 'enc2:%');
