-- Devices the records desk has been signed in on: a long-lived, HttpOnly cookie set at sign-in
-- holds a random token; this table keeps only its SHA-256 and the staff address it signed in as.
-- A sign-in link asked for from a known device, for that address, is counted against that
-- device's own limit only, so strangers asking for the instructor's address cannot keep her out
-- of the desk on a device she has used before. "Sign out everywhere" forgets them.
CREATE TABLE staff_devices (
  token_sha256 char(64) PRIMARY KEY CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX staff_devices_email_idx ON staff_devices (email);
