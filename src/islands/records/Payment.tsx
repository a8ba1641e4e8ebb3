import type { PaymentView } from '../../shared/desk-api';
import { dollars } from '../../shared/money';
import { Badge } from './ui';

/** Where she is paid in person: at the studio, or at the client's home for an in-home session. */
export type PaidWhere = 'studio' | 'home';
export const IN_PERSON: Record<PaidWhere, string> = {
  studio: 'at the studio',
  home: 'at their home',
};

function paymentWords(
  payment: PaymentView,
  cancelled: boolean,
  where: PaidWhere,
): [string, 'good' | 'warn' | 'bad'] {
  const amount = dollars(payment.amountCents);
  switch (payment.state) {
    case 'due':
      return cancelled ? ['Nothing due', 'warn'] : [`Due ${IN_PERSON[where]}: ${amount}`, 'bad'];
    case 'paying':
      return [`Paying online now: ${amount}`, 'warn'];
    case 'paid-studio':
      return [`Paid ${IN_PERSON[where]}: ${amount}`, cancelled ? 'warn' : 'good'];
    case 'paid-online':
      return [
        `Paid online: ${amount}${payment.refundedCents > 0 ? `, ${dollars(payment.refundedCents)} refunded` : ''}`,
        'good',
      ];
    case 'refunded':
      return [
        `Refunded: ${amount}${payment.refundPendingCents > 0 ? ' (Stripe is confirming it)' : ''}`,
        'warn',
      ];
  }
}

/** A payment's state as a badge, with each refund Stripe would not make. */
export function PaymentBadge({
  payment,
  cancelled,
  where = 'studio',
}: {
  payment: PaymentView;
  cancelled: boolean;
  where?: PaidWhere;
}) {
  const [words, tone] = paymentWords(payment, cancelled, where);
  return (
    <>
      <Badge tone={tone}>{words}</Badge>
      {payment.refused.map((refusal, index) => (
        <Badge key={index} tone="bad">
          {`Stripe would not refund ${dollars(refusal.amountCents)}, so nothing of it was refunded${
            refusal.words ? ` (Stripe said: “${refusal.words}”)` : ''
          }. Refund it again, or give it back another way.`}
        </Badge>
      ))}
    </>
  );
}
