-- A re-sign link works for WAIVER_RE_SIGN_DAYS (30 unless set) and is spent once the address it
-- was sent to signs a waiver: `expires_at` is set when the request is made, `used_at` when it is
-- spent. Requests made before this column expire 30 days after they were made.
ALTER TABLE waiver_resign_requests
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN used_at timestamptz;
UPDATE waiver_resign_requests SET expires_at = created_at + interval '30 days';
ALTER TABLE waiver_resign_requests ALTER COLUMN expires_at SET NOT NULL;
