-- A desk session ends after 30 minutes without a request (and 12 hours after sign-in at most):
-- each request moves last_seen_at on. A session's created_at is when she followed her sign-in
-- link, which erasures and health exports ask to be under 15 minutes old.
ALTER TABLE staff_sessions ADD COLUMN last_seen_at timestamptz;
UPDATE staff_sessions SET last_seen_at = created_at;
ALTER TABLE staff_sessions ALTER COLUMN last_seen_at SET NOT NULL;
ALTER TABLE staff_sessions ALTER COLUMN last_seen_at SET DEFAULT now();
