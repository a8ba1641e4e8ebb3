-- A booking's manage-link token, sealed (`enc2`, bound to the row and this column, like the
-- waivers' health fields), so a mail composed later (the reminder, a cancellation from the desk,
-- a moved booking's invite) carries the link the visitor was first sent, whatever key the site
-- uses by then; `npm run rotate-key` re-seals it. The token itself is 32 random bytes made at
-- booking; `manage_token_sha256` still finds the booking by it.
--
-- Nullable: a booking made before this column held none, its token being an HMAC of its id under
-- the key of that time. The site rebuilds such a token under each key it is given (the one whose
-- hash matches), and the next `npm run rotate-key`, run while that key is still given, seals it
-- here. A migration cannot fill it in: the key is not in the database.
ALTER TABLE consultation_bookings
  ADD COLUMN manage_token_sealed text CHECK (manage_token_sealed LIKE 'enc2:%');
