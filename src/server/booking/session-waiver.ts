/**
 * Whether a waiver on file covers the person booking a session, decided as the desk's "Is this
 * person covered?" decides it (records/participants.ts): their latest waiver under this e-mail
 * address in any case, spam aside, read by `statusOf` (waiver/versions.ts): covered when its text
 * is the version in force or a later non-material one, and not past the studio's
 * `validForMonths`.
 */
import { query } from '../platform/db';
import { statusOf } from '../waiver/versions';

export async function waiverCovers(email: string): Promise<boolean> {
  const [latest] = await query<{ created_at: Date; waiver_text_sha256: string }>(
    `SELECT created_at, waiver_text_sha256 FROM waivers
      WHERE lower(email) = lower($1) AND spam_reason IS NULL
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [email.trim()],
  );
  const status = statusOf(
    latest && { createdAt: new Date(latest.created_at), sha256: latest.waiver_text_sha256 },
  );
  return status === 'covered';
}
