-- Spam is kept for the instructor's review, never mailed: a row whose spam_reason is set
-- ('honeypot', 'too-fast' or 'no-timer') was caught by the form's invisible checks.
ALTER TABLE contact_messages ADD COLUMN spam_reason text;

-- What the review reads: the spam, newest first.
CREATE INDEX contact_messages_spam_idx ON contact_messages (created_at DESC)
  WHERE spam_reason IS NOT NULL;

-- Per-client request counters for the forms' rate limits, one row per client and fixed window.
-- Kept in Postgres so that every serverless instance counts against the same limit. The client is
-- a keyed hash of its IP address (client_hash), never the address itself; rows older than a day
-- are deleted as new windows open.
CREATE TABLE rate_limit_hits (
  bucket text NOT NULL,
  client_hash text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL DEFAULT 1,
  PRIMARY KEY (bucket, client_hash, window_start)
);

CREATE INDEX rate_limit_hits_window_idx ON rate_limit_hits (window_start);
