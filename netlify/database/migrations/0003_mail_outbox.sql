-- Store first, send later. Every e-mail the site owes someone is a row here, written in the same
-- transaction as the submission it belongs to, so a stored submission always has its mail queued.
-- The row holds no message content: only what kind of mail it is and which row it is about; the
-- mail is composed from that row when it is sent (so health data stays in the waiver row alone).
CREATE TABLE mail_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- What to send, e.g. 'contact', 'waiver-records', 'waiver-participant'.
  kind text NOT NULL,
  -- The id of the row the mail is composed from (contact_messages.id, waivers.id, ...).
  ref text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  -- A sender holds a row while it sends: no other sender claims it before locked_until, and only
  -- the holder of claim_token can record the outcome.
  locked_until timestamptz,
  claim_token uuid,
  sent_at timestamptz,
  -- Set when the sender gave up (too many attempts, or the source row is gone). The row stays.
  failed_at timestamptz,
  -- A short transport code (e.g. 'EENVELOPE 550'), never message content.
  last_error text,
  -- One mail of each kind per source row, whatever retries or duplicates happen.
  CONSTRAINT mail_outbox_once UNIQUE (kind, ref)
);

-- What a sender reads: the mail still owed, soonest due first.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at)
  WHERE sent_at IS NULL AND failed_at IS NULL;

-- Idempotency: the browser names each submission; a retry or double click finds the first one.
ALTER TABLE contact_messages ADD COLUMN submission_id uuid;
ALTER TABLE contact_messages ADD CONSTRAINT contact_messages_submission_once UNIQUE (submission_id);

-- Messages stored before the outbox existed and never e-mailed are owed their mail too.
INSERT INTO mail_outbox (kind, ref, attempts, last_attempt_at, last_error)
SELECT 'contact', id::text, mail_attempts, mail_last_attempt_at, mail_last_error
  FROM contact_messages
 WHERE mail_sent_at IS NULL;

-- contact_messages.mail_* now mirror the outbox (kept up to date by the sender) for convenience.
