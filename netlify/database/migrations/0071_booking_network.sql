-- How many consultations to come one visitor may hold (CONSULTATION_UPCOMING_PER_EMAIL and
-- CONSULTATION_UPCOMING_PER_NETWORK): a booking keeps the network it was made from (an IPv4
-- address's /24, an IPv6 address's /56) as a keyed hash (HMAC-SHA-256, like the rate limits'),
-- never the address itself; null for a booking made before this column, which counts for none.
-- The desk also shows when one network holds several of the bookings to come.
ALTER TABLE consultation_bookings ADD COLUMN client_network text;

CREATE INDEX consultation_bookings_network_idx ON consultation_bookings (client_network, starts_at)
  WHERE cancelled_at IS NULL AND spam_reason IS NULL;

-- One mailbox however it is written: any case, without a +tag (ada+1@ and ada+2@ are ada@).
CREATE INDEX consultation_bookings_mailbox_idx
  ON consultation_bookings ((regexp_replace(lower(email), '\+[^@]*@', '@')), starts_at)
  WHERE cancelled_at IS NULL AND spam_reason IS NULL;
