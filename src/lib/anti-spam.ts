/**
 * The two invisible spam checks shared by the forms and the functions. People never see them:
 * the honeypot is a field hidden from eyes and assistive technology that only a bot fills in, and
 * the time trap is how long the form was open before it was sent (measured on one clock, the
 * browser's, so a visitor whose computer clock is wrong is not mistaken for a bot).
 */
export const HONEYPOT_FIELD = 'website';
export const TIMER_FIELD = 'fillTimeMs';

/** Nobody reads, types and sends a form faster than this (milliseconds). */
export const MIN_FILL_MS = { contact: 3_000, waiver: 5_000 } as const;

export interface AntiSpamFields {
  [HONEYPOT_FIELD]: string;
  [TIMER_FIELD]: number;
}

/** What a form adds to its JSON body: the honeypot's value and the time it has been open. */
export function antiSpamFields(form: HTMLFormElement, openedAt: number): AntiSpamFields {
  const trap = form.elements.namedItem(HONEYPOT_FIELD);
  return {
    [HONEYPOT_FIELD]: trap instanceof HTMLInputElement ? trap.value : '',
    [TIMER_FIELD]: Math.max(0, Math.round(performance.now() - openedAt)),
  };
}
