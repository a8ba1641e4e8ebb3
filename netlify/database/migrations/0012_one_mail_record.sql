-- mail_outbox is the one record of every mail: what was sent, what is still owed, what was given
-- up on and why. The submissions kept copies of it (contact_messages.mail_*, waivers.*_mailed_at
-- and mail_*), written by a second code path; they go. Mail sent before the outbox existed is
-- recorded in the outbox first, so nothing of what was known is lost.
INSERT INTO mail_outbox (kind, ref, attempts, last_attempt_at, sent_at)
SELECT 'contact', c.id::text, c.mail_attempts, c.mail_last_attempt_at, c.mail_sent_at
  FROM contact_messages c
 WHERE c.mail_sent_at IS NOT NULL
ON CONFLICT ON CONSTRAINT mail_outbox_once DO NOTHING;

INSERT INTO mail_outbox (kind, ref, sent_at)
SELECT 'waiver-records', w.id::text, w.records_mailed_at FROM waivers w
 WHERE w.records_mailed_at IS NOT NULL
ON CONFLICT ON CONSTRAINT mail_outbox_once DO NOTHING;

INSERT INTO mail_outbox (kind, ref, sent_at)
SELECT 'waiver-participant', w.id::text, w.participant_mailed_at FROM waivers w
 WHERE w.participant_mailed_at IS NOT NULL
ON CONFLICT ON CONSTRAINT mail_outbox_once DO NOTHING;

DROP INDEX IF EXISTS contact_messages_unsent_idx;
ALTER TABLE contact_messages
  DROP COLUMN mail_sent_at,
  DROP COLUMN mail_attempts,
  DROP COLUMN mail_last_attempt_at,
  DROP COLUMN mail_last_error;
ALTER TABLE waivers
  DROP COLUMN records_mailed_at,
  DROP COLUMN participant_mailed_at,
  DROP COLUMN mail_attempts,
  DROP COLUMN mail_last_error;

-- What the records desk and the mail composers look up: a submission's mails.
CREATE INDEX IF NOT EXISTS mail_outbox_ref_idx ON mail_outbox (ref, kind);
