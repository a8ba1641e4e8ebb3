/**
 * What every form function answers, and the words it uses when it refuses a submission for a
 * reason of its own. The functions send these words; the forms show the server's `error` as it
 * came, and fall back on the same words here only when a refusal arrives without them (a proxy's
 * bare 413, say).
 */
import { waitInWords } from './anti-spam';
import type { FieldErrors } from './fields';

export type FormName = 'contact' | 'waiver' | 'booking' | 'session' | 'list' | 'class';

export type FormAnswer =
  { success: true; id: string } | { success: false; error: string; fieldErrors?: FieldErrors };

const WORDS = {
  contact: {
    many: 'messages',
    tooLarge: 'Your message is too long to send. Please shorten it and try again.',
    unavailable: 'Your message could not be saved just now. Please try again shortly.',
    failed: 'Your message could not be saved. Please try again.',
  },
  waiver: {
    many: 'waivers',
    tooLarge:
      'The waiver is too large to send. Please clear the signature, sign again and resubmit.',
    unavailable:
      'We could not save your waiver right now, so nothing was recorded. Please try again in a few minutes, or contact us directly.',
    failed: 'We could not save your waiver, so nothing was recorded. Please try again.',
  },
  booking: {
    many: 'bookings',
    tooLarge: 'Your booking is too long to send. Please shorten what you wrote and try again.',
    unavailable:
      'Your consultation could not be booked just now, so nothing was reserved. Please try again shortly.',
    failed: 'Your consultation could not be booked, so nothing was reserved. Please try again.',
  },
  session: {
    many: 'bookings',
    tooLarge: 'Your booking is too long to send. Please shorten what you wrote and try again.',
    unavailable:
      'Your session could not be booked just now, so nothing was reserved. Please try again shortly.',
    failed: 'Your session could not be booked, so nothing was reserved. Please try again.',
  },
  class: {
    many: 'bookings',
    tooLarge: 'Your booking is too long to send. Please shorten what you wrote and try again.',
    unavailable:
      'Your place could not be booked just now, so nothing was reserved. Please try again shortly.',
    failed: 'Your place could not be booked, so nothing was reserved. Please try again.',
  },
  list: {
    many: 'sign-ups',
    tooLarge: 'That is too long to be an e-mail address. Please check it and try again.',
    unavailable:
      'You could not be signed up just now, so nothing was saved. Please try again shortly.',
    failed: 'You could not be signed up, so nothing was saved. Please try again.',
  },
} as const satisfies Record<FormName, Record<string, string>>;

/** The 422 answer's `error` when no field names its problem itself. */
export const CHECK_FIELDS = 'Please check the highlighted fields.';

/** What a page says above the list of the fields that need fixing. */
export const FIX_BELOW = 'Please fix the fields below.';

/** The booking's 409: the slot was taken between loading the page and sending the form. */
export const SLOT_TAKEN = 'That time has just been taken. Please choose another one.';

/** A submission id already stored, sent again with other details (409): nothing is told of the first. */
export const OTHER_REQUEST =
  'This form was already sent with other details, so nothing more was stored. Please reload the page and send it again.';

export const TEXT_CHANGED =
  'The waiver text has been updated since this page was loaded. Please reload the page, read the current waiver and sign again.';

/**
 * The words for a refusal of `status` by the `form`'s function, or `undefined` for a status that
 * is not a refusal of the server's own (a field error is worded by the field).
 */
export function refusal(
  form: FormName,
  status: number,
  retryAfterSeconds?: number,
): string | undefined {
  const words = WORDS[form];
  switch (status) {
    case 400:
      return 'The form could not be read. Please reload the page and try again.';
    case 403:
      return 'The form could not be sent from this page. Please reload the page and try again.';
    case 405:
      return 'Send the form with POST.';
    case 408:
      return 'The form took too long to arrive. Please check your connection and try again.';
    case 409:
      return form === 'waiver'
        ? TEXT_CHANGED
        : form === 'booking' || form === 'session'
          ? SLOT_TAKEN
          : undefined;
    case 413:
      return words.tooLarge;
    case 415:
      return 'The form was sent in a format the studio cannot read. Please reload the page and try again.';
    case 429: {
      const when =
        retryAfterSeconds && retryAfterSeconds > 0
          ? `in ${waitInWords(retryAfterSeconds)}`
          : 'a little later';
      return `Too many ${words.many} have been sent from your connection. Please try again ${when}.`;
    }
    case 500:
      return words.failed;
    case 503:
      return words.unavailable;
    default:
      return undefined;
  }
}

/** A server's answer as a form reads it: `undefined` when the body is not a form answer at all. */
export function readAnswer(body: unknown): FormAnswer | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { success, id, error, fieldErrors } = body as Record<string, unknown>;
  if (success === true && typeof id === 'string') return { success, id };
  if (success !== false || typeof error !== 'string') return undefined;
  const fields: FieldErrors = {};
  if (typeof fieldErrors === 'object' && fieldErrors !== null) {
    for (const [field, message] of Object.entries(fieldErrors)) {
      if (typeof message === 'string') fields[field] = message;
    }
  }
  return { success, error, ...(Object.keys(fields).length > 0 && { fieldErrors: fields }) };
}
