import { HONEYPOT_FIELD, TIMER_FIELD } from '../../forms/anti-spam';

/** Why a submission was taken for spam; stored on its row for the instructor's review. */
export type SpamReason = 'honeypot' | 'too-fast' | 'no-timer';

/**
 * The verdict of the two invisible checks on a raw body. Spam is still stored (marked, for
 * review) and answered like any submission, so a bot learns nothing; it is just never mailed.
 * The form's script always sends the time; a plain form post from a browser without script
 * cannot (`timerRequired: false`), and is judged by the honeypot alone (and the rate limit).
 */
export function spamReason(
  body: Record<string, unknown>,
  minFillMs: number,
  { timerRequired = true } = {},
): SpamReason | null {
  const trap = body[HONEYPOT_FIELD];
  if (trap !== undefined && trap !== null && trap !== '') return 'honeypot';
  const elapsed = body[TIMER_FIELD];
  if (elapsed === undefined && !timerRequired) return null;
  if (typeof elapsed !== 'number' || !Number.isFinite(elapsed)) return 'no-timer';
  if (elapsed < minFillMs) return 'too-fast';
  return null;
}
