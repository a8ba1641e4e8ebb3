-- A mail the site chose not to send, and why: the participant's copy of a waiver past the day's
-- limit of copies to one address ('recipient-limit'). It stays in the outbox as the record that
-- it was held back; it is never due, never tried, and not counted as undelivered.
ALTER TABLE mail_outbox ADD COLUMN skipped text;
