-- Every message sent through the contact form, stored before any e-mail is attempted, so an
-- inquiry survives a mail outage. A row whose mail_sent_at is NULL still has to reach the inbox.
CREATE TABLE contact_messages (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  -- NULL when the visitor chose no service.
  service text,
  message text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  mail_sent_at timestamptz,
  mail_attempts integer NOT NULL DEFAULT 0,
  mail_last_attempt_at timestamptz,
  -- A short transport code (e.g. 'EENVELOPE 550'), never message content.
  mail_last_error text
);

-- What a retry job reads: the unsent messages, oldest first.
CREATE INDEX contact_messages_unsent_idx ON contact_messages (created_at)
  WHERE mail_sent_at IS NULL;
