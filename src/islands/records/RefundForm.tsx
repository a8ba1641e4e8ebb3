import { useState, type SubmitEvent } from 'react';
import type { PaymentView } from '../../shared/desk-api';
import { dollars } from '../../shared/money';
import type { DeskError } from './api';
import { BUTTON_DANGER, BUTTON_QUIET, INPUT } from './ui';

/** The form behind Refund…: how much of a payment made online to give back (empty: the rest). */
export function RefundForm({
  id,
  payment,
  busy,
  onSubmit,
  onClose,
}: {
  id: string;
  payment: PaymentView;
  busy: boolean;
  onSubmit: (amount: string) => Promise<DeskError | undefined>;
  onClose: () => void;
}) {
  const [error, setError] = useState<string>();
  const send = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const amount = String(new FormData(event.currentTarget).get('amount') ?? '');
    const refused = await onSubmit(amount);
    if (!refused) onClose();
    else setError(refused.fieldErrors.amount);
  };
  return (
    <form onSubmit={(event) => void send(event)} className="w-full space-y-3 pt-1" noValidate>
      <div>
        <label htmlFor={`${id}-amount`} className="mb-1 block text-sm font-semibold">
          Amount to refund, in dollars
        </label>
        <input
          id={`${id}-amount`}
          name="amount"
          inputMode="decimal"
          placeholder={(payment.refundableCents / 100).toFixed(2).replace(/\.00$/, '')}
          className={`${INPUT} max-w-40`}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-amount-hint`}
        />
        <p id={`${id}-amount-hint`} className="mt-1 text-sm text-muted">
          {error ?? `Empty: all that is left, ${dollars(payment.refundableCents)}.`} The money goes
          back to the card it was paid with; Stripe keeps its fee. They get an e-mail saying how
          much.
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={BUTTON_DANGER} disabled={busy}>
          Refund
        </button>
        <button type="button" className={BUTTON_QUIET} onClick={onClose}>
          Not now
        </button>
      </div>
    </form>
  );
}
