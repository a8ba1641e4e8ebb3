-- mail_outbox_ref_idx (ref, kind), made in 0012, repeats what the unique constraint
-- mail_outbox_once (kind, ref) of 0003 already indexes: every lookup of a submission's mails
-- names its kinds too (kind = ANY(...) AND ref = ...), which that index serves. The extra one only
-- cost a write on every queued mail.
DROP INDEX IF EXISTS mail_outbox_ref_idx;
