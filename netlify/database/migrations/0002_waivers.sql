-- Signed liability waivers and the exact text each was signed under.

-- Each distinct waiver text is kept once, keyed by its SHA-256; `version` is the label from
-- content/waiver.md. Editing the text without changing the version still files a new row.
CREATE TABLE IF NOT EXISTS waiver_texts (
  sha256 char(64) PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  version text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS waivers (
  id uuid PRIMARY KEY,
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text NOT NULL,
  phone text NOT NULL,
  emergency_name text NOT NULL,
  emergency_phone text NOT NULL,
  medical_conditions text NOT NULL DEFAULT '',
  medications text NOT NULL DEFAULT '',
  agreed_to_terms boolean NOT NULL CHECK (agreed_to_terms),
  agreed_to_photos boolean NOT NULL,
  signature_png bytea NOT NULL,
  signature_sha256 char(64) NOT NULL,
  waiver_text_sha256 char(64) NOT NULL REFERENCES waiver_texts (sha256),
  -- The audit trail: the database's clock, not the browser's.
  created_at timestamptz NOT NULL DEFAULT now(),
  client_ip text,
  user_agent text,
  -- Mail delivery: NULL means not sent yet; a retry job picks up rows with a NULL here.
  records_mailed_at timestamptz,
  participant_mailed_at timestamptz,
  mail_attempts integer NOT NULL DEFAULT 0,
  mail_last_error text
);

CREATE INDEX IF NOT EXISTS waivers_unmailed_idx ON waivers (created_at)
  WHERE records_mailed_at IS NULL OR participant_mailed_at IS NULL;
