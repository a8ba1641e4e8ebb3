/**
 * When a mail in the outbox is due: not sent, not given up on, not held back, still owed (not
 * retired), the time of its next attempt come, and no sender holding it. One rule for the
 * outbox's senders (outbox.ts) and for npm start's
 * cheap look whether to run them at all (scripts/server/database.ts, which Node runs as it is:
 * so this file imports nothing).
 *
 * `now` is the SQL of the present moment: Postgres's `now()`, or a parameter such as
 * `$3::timestamptz` for a clock the caller controls.
 */
export function mailDue(now = 'now()'): string {
  return `sent_at IS NULL AND failed_at IS NULL AND skipped IS NULL AND retired_at IS NULL
          AND next_attempt_at <= ${now}
          AND (locked_until IS NULL OR locked_until <= ${now})`;
}
