import { useState } from 'react';
import type { PaymentView } from '../../shared/desk-api';
import { dollars } from '../../shared/money';
import { ask, desk, DeskError } from './api';
import { NoteForm } from './NoteForm';
import { IN_PERSON, type PaidWhere } from './Payment';
import { RefundForm } from './RefundForm';
import type { Outcome } from './useLoad';
import { BUTTON_QUIET, Notice } from './ui';

/** What a button on the screen does, then its outcome in words; false when it was refused. */
export type Act = (id: string, work: () => Promise<string>) => Promise<boolean>;

/**
 * The buttons of one session or class place: paid (and its undo), no-show (and its undo),
 * cancel and refund (each behind a confirming form).
 */
export function Actions({
  kind,
  id,
  who,
  what,
  where = 'studio',
  payment,
  cancelled,
  begun,
  noShow,
  busy,
  act,
  titleId,
}: {
  kind: 'consultation' | 'session' | 'place';
  id: string;
  who: string;
  what: string;
  where?: PaidWhere;
  payment: PaymentView | null;
  cancelled: boolean;
  begun: boolean;
  noShow: boolean;
  busy: boolean;
  act: Act;
  titleId: string;
}) {
  const [open, setOpen] = useState<'cancel' | 'refund'>();
  // One press of Refund, until it is answered: sent again (a double tap, a retry after an error,
  // the form closed and opened again) it refunds once. A new one after a refund went through.
  const [press, setPress] = useState(() => crypto.randomUUID());
  const payable = kind !== 'consultation';
  const close = () => setOpen(undefined);
  const paid = async () =>
    act(id, async () => {
      if (kind === 'consultation') return '';
      await ask(desk.bookings.paid.$post({ json: { kind, id } }));
      return `Marked paid ${IN_PERSON[where]}: ${who}, ${what}. A mistake? Press Not paid after all.`;
    });
  const unpaid = async () =>
    act(id, async () => {
      if (kind === 'consultation') return '';
      await ask(desk.bookings.paid.$post({ json: { kind, id, paid: false } }));
      return `${who} is no longer marked paid: ${payment ? dollars(payment.amountCents) : 'the price'} is due again.`;
    });
  const absent = async () =>
    act(id, async () => {
      if (kind === 'consultation') return '';
      await ask(desk.bookings['no-show'].$post({ json: { kind, id, noShow: !noShow } }));
      return noShow ? `${who} is no longer marked a no-show.` : `${who} is marked a no-show.`;
    });
  const cancel = async (note: string) =>
    act(id, async () => {
      const answer = await ask(desk.bookings.cancel.$post({ json: { kind, id, note } }));
      return `Cancelled: ${who}, ${what}. ${
        kind === 'place'
          ? 'They get the cancellation, and the place is offered to the first person waiting, if anyone is.'
          : 'They get the cancellation, and your calendar too.'
      }${answer.refundedCents > 0 ? ` ${dollars(answer.refundedCents)} is refunded to them.` : ''}`;
    });
  const refund = async (amount: string) => {
    let refused: DeskError | undefined;
    const done = await act(id, async () => {
      if (kind === 'consultation') return '';
      try {
        const answer = await ask(
          desk.bookings.refund.$post({ json: { kind, id, amount, request: press } }),
        );
        setPress(crypto.randomUUID());
        return answer.confirmed
          ? `Refunded ${dollars(answer.refundedCents)} to ${who}. They get an e-mail saying so.`
          : `Refund of ${dollars(answer.refundedCents)} to ${who} asked of Stripe: it shows as refunded now, and Stripe confirms it within minutes. They get an e-mail saying so.`;
      } catch (error) {
        if (error instanceof DeskError) refused = error;
        throw error;
      }
    });
    return done ? undefined : (refused ?? new DeskError(0, ''));
  };
  const canPay = payable && !cancelled && payment?.state === 'due';
  const canUnpay = payable && !cancelled && payment?.state === 'paid-studio';
  const canRefund = payable && (payment?.refundableCents ?? 0) > 0;
  const canNoShow = payable && !cancelled && begun;
  const canCancel = !cancelled && !begun;
  if (!canPay && !canUnpay && !canRefund && !canNoShow && !canCancel) return null;
  return (
    <div className="flex flex-wrap gap-2 pt-1">
      {open === undefined && (
        <>
          {canPay && (
            <button
              type="button"
              className={BUTTON_QUIET}
              disabled={busy}
              onClick={() => void paid()}
              aria-describedby={titleId}
            >
              {where === 'home' ? 'Paid at their home' : 'Paid at the studio'}
            </button>
          )}
          {canUnpay && (
            <button
              type="button"
              className={BUTTON_QUIET}
              disabled={busy}
              onClick={() => void unpaid()}
              aria-describedby={titleId}
            >
              Not paid after all
            </button>
          )}
          {canNoShow && (
            <button
              type="button"
              className={BUTTON_QUIET}
              disabled={busy}
              onClick={() => void absent()}
              aria-describedby={titleId}
            >
              {noShow ? 'They came after all' : 'No-show'}
            </button>
          )}
          {canRefund && (
            <button
              type="button"
              className={BUTTON_QUIET}
              onClick={() => setOpen('refund')}
              aria-describedby={titleId}
            >
              Refund…
            </button>
          )}
          {canCancel && (
            <button
              type="button"
              className={BUTTON_QUIET}
              onClick={() => setOpen('cancel')}
              aria-describedby={titleId}
            >
              Cancel…
            </button>
          )}
        </>
      )}
      {open === 'cancel' && (
        <NoteForm
          id={`cancel-${id}`}
          who={who}
          words={`They get it with the cancellation, which also takes it out of their calendar${kind === 'place' ? '' : ' and yours'}.${
            payment && payment.refundableCents > 0
              ? ` What they paid online, ${dollars(payment.refundableCents)}, is refunded to them.`
              : ''
          }`}
          submit={kind === 'place' ? 'Cancel their place' : `Cancel this ${kind}`}
          busy={busy}
          onSubmit={cancel}
          onClose={close}
        />
      )}
      {open === 'refund' && payment && (
        <RefundForm
          id={`refund-${id}`}
          payment={payment}
          busy={busy}
          onSubmit={refund}
          onClose={close}
        />
      )}
    </div>
  );
}

/** The outcome of what she last did, shown on the booking, class or place it was done to. */
export function outcomeOf(acted: { id: string; outcome: Outcome } | undefined, id: string) {
  return acted?.id === id ? <Notice tone={acted.outcome.tone}>{acted.outcome.words}</Notice> : null;
}
