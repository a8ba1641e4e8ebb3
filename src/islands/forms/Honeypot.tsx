import { HONEYPOT_FIELD } from '../../forms/anti-spam';

/**
 * The honeypot: a field no person sees, reaches with Tab, hears read out or gets autofilled,
 * so only a bot that fills in every field it finds fills it in. Hidden with classes, not a
 * style attribute, which the Content-Security-Policy would refuse.
 */
export default function Honeypot({ idPrefix }: { idPrefix: string }) {
  const id = `${idPrefix}-${HONEYPOT_FIELD}`;
  return (
    <div aria-hidden="true" className="sr-only">
      <label htmlFor={id}>Leave this field empty</label>
      <input id={id} type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" />
    </div>
  );
}
