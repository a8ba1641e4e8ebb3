-- Waivers go through the mail outbox too (see 0003_mail_outbox.sql): the studio's records copy
-- ('waiver-records') and the participant's copy ('waiver-participant') are queued in the same
-- transaction as the waiver, and waivers.records_mailed_at / participant_mailed_at mirror them.

-- Idempotency: the browser names each submission; a retry or double click finds the first one.
ALTER TABLE waivers ADD COLUMN submission_id uuid;
ALTER TABLE waivers ADD CONSTRAINT waivers_submission_once UNIQUE (submission_id);

-- Waivers stored before the outbox existed and not yet e-mailed are owed their mail too.
INSERT INTO mail_outbox (kind, ref, attempts)
SELECT 'waiver-records', id::text, mail_attempts FROM waivers WHERE records_mailed_at IS NULL;
INSERT INTO mail_outbox (kind, ref, attempts)
SELECT 'waiver-participant', id::text, mail_attempts FROM waivers WHERE participant_mailed_at IS NULL;

DROP INDEX IF EXISTS waivers_unmailed_idx;
