-- Get Notified: the list of people who asked to hear when event dates are announced.
-- Double opt-in: a sign-up is a pending row and a confirmation (a mail with a link); only a
-- confirmed, not unsubscribed address is ever sent an announcement.
CREATE TABLE list_subscribers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- As typed (trimmed); one row per address, whatever its case.
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The last time this address was signed up (stamped by the site's clock).
  signed_up_at timestamptz NOT NULL,
  -- Consent: when it was confirmed, from where (the client's network as the rate limits key it:
  -- a keyed hash, never the address), and the words the person agreed to.
  confirmed_at timestamptz,
  confirmed_from text,
  confirmed_wording text,
  -- Set by an unsubscribe (the link in every list mail, or the desk's "remove"): never mailed
  -- again unless a new confirmation made after it is confirmed.
  unsubscribed_at timestamptz,
  -- SHA-256 of the unsubscribe token (an HMAC of the row's id: every list mail can carry it).
  unsubscribe_hash text UNIQUE
);
CREATE UNIQUE INDEX list_subscribers_email_once ON list_subscribers (lower(email));

-- One per sign-up: the link of its confirmation mail, valid for 48 hours, used once.
CREATE TABLE list_confirmations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subscriber_id bigint NOT NULL REFERENCES list_subscribers (id) ON DELETE CASCADE,
  -- The browser's (or the server's) submission id: a repeated sign-up stores nothing more.
  submission_id uuid NOT NULL CONSTRAINT list_confirmations_submission_once UNIQUE,
  -- SHA-256 of the link's token (an HMAC of the row's id, so a retried mail carries it again).
  token_hash text UNIQUE,
  -- The words on the form the person signed up with: what they agree to by confirming.
  wording text NOT NULL,
  -- 'honeypot' or 'too-fast': kept, never mailed.
  spam_reason text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX list_confirmations_subscriber_idx ON list_confirmations (subscriber_id);

-- An event announced to the list: once per event (the unique constraint), with what the mail
-- says, copied from the built site when it was sent, so a retried mail says the same.
CREATE TABLE list_announcements (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id text NOT NULL CONSTRAINT list_announcements_once UNIQUE,
  event jsonb NOT NULL,
  recipients integer NOT NULL,
  created_at timestamptz NOT NULL,
  created_by text NOT NULL
);
