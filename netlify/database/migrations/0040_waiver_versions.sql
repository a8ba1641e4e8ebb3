-- Re-sign requests: once a material new version of the waiver text is published, the desk asks
-- everyone whose latest waiver is under an older version to sign again, once per person
-- (lower(email)) per version, however often the button is pressed: the unique constraint, not
-- application code, makes the second request a no-op. The mail's link carries a random token:
-- this table keeps its SHA-256 (to find the request by it) and the token sealed with the site's
-- key, bound to the row, so a mail composed later carries the same link (npm run rotate-key
-- re-seals it). A request goes with the waiver it was made from (an erasure, a retention run).
CREATE TABLE waiver_resign_requests (
  id uuid PRIMARY KEY,
  email_key text NOT NULL CHECK (email_key = lower(email_key)),
  version text NOT NULL,
  waiver_id uuid NOT NULL REFERENCES waivers (id) ON DELETE CASCADE,
  token_sha256 char(64) NOT NULL UNIQUE CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  token_sealed text NOT NULL,
  requested_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (email_key, version)
);

CREATE INDEX waiver_resign_requests_waiver_idx ON waiver_resign_requests (waiver_id);

-- Participants are grouped by their address in any case.
CREATE INDEX IF NOT EXISTS waivers_email_key_idx ON waivers (lower(email), created_at DESC);

-- Waiver kiosks: devices the desk turned into the studio's signing tablet. The device keeps a
-- random token in a cookie; this table keeps its SHA-256. Turned off from the desk: deleted.
CREATE TABLE waiver_kiosks (
  token_sha256 char(64) PRIMARY KEY CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  label text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
