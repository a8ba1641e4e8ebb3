/**
 * The invisible spam checks shared by the forms and the functions, and the words for a rate
 * limit. People never see the checks: the honeypot is a field hidden from eyes and assistive
 * technology that only a bot fills in, and the time trap is how long the page had been open when
 * the form was sent, measured on the browser's own clock from the moment the page (and so the
 * form) was rendered — one clock, so a visitor whose computer clock is wrong is not taken for a bot.
 */
export const HONEYPOT_FIELD = 'website';
export const TIMER_FIELD = 'fillTimeMs';

/** Nobody reads, types and sends a form faster than this (milliseconds). */
export const MIN_FILL_MS = { contact: 3_000, waiver: 5_000 } as const;

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
