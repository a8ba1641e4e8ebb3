/**
 * The invisible spam checks shared by the forms and the functions, their verdict, and the words
 * for a rate limit. People never see the checks: the honeypot is a field hidden from eyes and assistive
 * technology that only a bot fills in, and the time trap is how long the page had been open when
 * the form was sent, measured on the browser's own clock from the moment the page (and so the
 * form) was rendered — one clock, so a visitor whose computer clock is wrong is not taken for a bot.
 */
export const HONEYPOT_FIELD = 'website';
export const TIMER_FIELD = 'fillTimeMs';

/** Nobody reads, types and sends a form faster than this (milliseconds). */
export const MIN_FILL_MS = {
  contact: 3_000,
  waiver: 5_000,
  booking: 3_000,
  session: 3_000,
  list: 2_000,
  class: 3_000,
} as const;

export interface AntiSpamFields {
  [HONEYPOT_FIELD]: string;
  [TIMER_FIELD]: number;
}

/** What a form adds to its JSON body: the honeypot's value and how long the page has been open. */
export function antiSpamFields(form: HTMLFormElement): AntiSpamFields {
  const trap = form.elements.namedItem(HONEYPOT_FIELD);
  return {
    [HONEYPOT_FIELD]: trap instanceof HTMLInputElement ? trap.value : '',
    [TIMER_FIELD]: Math.round(performance.now()),
  };
}

/** "2 minutes", "1 hour", "30 seconds": how long a visitor has to wait, for people. */
export function waitInWords(seconds: number): string {
  const [amount, unit] =
    seconds >= 5_400
      ? [Math.ceil(seconds / 3_600), 'hour']
      : seconds >= 90
        ? [Math.ceil(seconds / 60), 'minute']
        : [Math.max(1, Math.ceil(seconds)), 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

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
