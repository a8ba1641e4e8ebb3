-- The records desk (/records): who may enter, what they did there, and the signed PDFs as filed.

-- Sign-in links mailed to the addresses in STAFF_EMAILS. Only the SHA-256 of a link's token is
-- kept, so a copy of this table signs nobody in; a link is used once (used_at), before expires_at.
CREATE TABLE staff_sign_in_links (
  token_sha256 char(64) PRIMARY KEY CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE INDEX staff_sign_in_links_email_idx ON staff_sign_in_links (email);

-- A signed-in desk: the cookie holds the token, this table only its SHA-256. "Sign out" revokes
-- one session, "sign out everywhere" every session of that person.
CREATE TABLE staff_sessions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_sha256 char(64) NOT NULL UNIQUE CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);

CREATE INDEX staff_sessions_email_idx ON staff_sessions (email);

-- Everything done on the desk that touches a person's records: sign-ins, views of health
-- information, downloads, exports, erasures, "not spam", "send again". It names records by id
-- and counts them; it never copies what they hold, so it survives an erasure with nothing of the
-- person in it.
CREATE TABLE records_access_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  -- The staff address that did it.
  actor text NOT NULL,
  -- e.g. 'sign-in', 'view-waiver', 'download-pdf', 'export-waivers', 'erase', 'not-spam'.
  action text NOT NULL,
  -- 'waiver', 'message', 'mail' or NULL; record_id is that row's id.
  record_kind text,
  record_id text,
  -- Counts, record ids, a date range, whether health columns were exported: never personal data.
  detail jsonb NOT NULL DEFAULT '{}'::jsonb
);

CREATE INDEX records_access_log_at_idx ON records_access_log (at DESC, id DESC);

-- The studio's records copy of each signed waiver, exactly as it was made (and mailed): its
-- bytes sealed with AES-256-GCM (they hold health information), and its SHA-256 recorded when
-- it was made. The desk serves these bytes, so the downloaded file is the mailed file.
CREATE TABLE waiver_pdfs (
  waiver_id uuid PRIMARY KEY REFERENCES waivers (id) ON DELETE CASCADE,
  sha256 char(64) NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  sealed bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- What the desk lists and pages through: newest first.
CREATE INDEX waivers_created_idx ON waivers (created_at DESC, id DESC);
CREATE INDEX contact_messages_created_idx ON contact_messages (created_at DESC, id DESC);
-- What an erasure looks a participant up by.
CREATE INDEX waivers_email_idx ON waivers (lower(email));
CREATE INDEX contact_messages_email_idx ON contact_messages (lower(email));
-- What the desk's delivery screen reads: the mail not sent.
CREATE INDEX mail_outbox_unsent_idx ON mail_outbox (created_at DESC) WHERE sent_at IS NULL;
