import { HONEYPOT_FIELD, TIMER_FIELD } from '../../shared/anti-spam';

/**
 * The form's two invisible spam checks. The honeypot: a field no person sees, reaches with Tab,
 * hears read out or gets autofilled, so only a bot that fills in every field fills it in (hidden
 * with classes, not a style attribute, which the Content-Security-Policy would refuse). And the
 * time trap's field, which the page's inline script (components/forms/FormTimer) stamps when the
 * form is posted before its own script has arrived; the script sends the time itself.
 */
export default function SpamChecks({ idPrefix }: { idPrefix: string }) {
  const id = `${idPrefix}-${HONEYPOT_FIELD}`;
  return (
    <>
      <div aria-hidden="true" className="sr-only">
        <label htmlFor={id}>Leave this field empty</label>
        <input id={id} type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" />
      </div>
      <input type="hidden" name={TIMER_FIELD} />
    </>
  );
}
