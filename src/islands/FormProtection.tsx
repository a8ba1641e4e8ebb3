import { HONEYPOT_FIELD, waitInWords } from '../lib/anti-spam';

/**
 * The honeypot: a field no person sees, reaches with Tab, hears read out or gets autofilled,
 * so only a bot that fills in every field it finds fills it in. Hidden with classes, not a
 * style attribute, which the Content-Security-Policy would refuse.
 */
export function HoneypotField({ idPrefix }: { idPrefix: string }) {
  const id = `${idPrefix}-${HONEYPOT_FIELD}`;
  return (
    <div aria-hidden="true" className="sr-only">
      <label htmlFor={id}>Leave this field empty</label>
      <input id={id} type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" />
    </div>
  );
}

/**
 * What to tell the visitor when the server refused the form for a reason of its own (not a
 * field): too many submissions (429, with when to try again), too large (413), or not sent
 * from the site's page (403). `undefined` for any other answer.
 */
export function refusalText(response: Response, noun: 'messages' | 'waivers'): string | undefined {
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'));
    const when =
      Number.isFinite(seconds) && seconds > 0 ? `in ${waitInWords(seconds)}` : 'a little later';
    return `Too many ${noun} have been sent from your connection. Please try again ${when}.`;
  }
  if (response.status === 413) {
    return noun === 'messages'
      ? 'Your message is too long to send. Please shorten it and try again.'
      : 'The waiver is too large to send. Please clear the signature, sign again and resubmit.';
  }
  if (response.status === 403) {
    return 'The form could not be sent from this page. Please reload the page and try again.';
  }
  return undefined;
}
