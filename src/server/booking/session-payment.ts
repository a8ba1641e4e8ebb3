/**
 * A private or in-home session paid online (src/server/payments/webhook.ts): held while its
 * checkout is open (`payment = 'held'` until `hold_expires_at`), confirmed when Stripe says it is
 * paid, released when the checkout lapses. A payment that comes after the hold lapsed takes the
 * time again when it is still free; Postgres refuses it when another booking holds it (23P01),
 * and then the payment is refunded.
 */
import type { Payable } from '../payments/webhook';
import { sqlNow } from '../platform/clock';
import type { FormOutbox } from '../request/steps';
import { sessionMails, type SessionMailKind } from './appointment-mail';
import { LAPSED_CHECKOUT, releaseSessionHold } from './session-store';
import { isSlotTaken } from './store';

/** The session's side of a payment settling, queuing its mails in `outbox`. */
export const sessionPayable = (
  outbox: FormOutbox<SessionMailKind | 'payment-refunded' | 'payment-mismatch'>,
): Payable => ({
  async confirm(tx, id) {
    const { rows: before } = await tx.query(
      'SELECT payment FROM session_bookings WHERE id = $1 FOR UPDATE',
      [id],
    );
    const payment = (before[0] as { payment: string } | undefined)?.payment;
    if (payment === 'paid') return { outcome: 'already', mails: [] };
    await tx.query('SAVEPOINT session_paid');
    try {
      // Live and held, or released only because its checkout lapsed, and still to come: the
      // trigger on session_bookings takes its time again (23P01 when another booking has it).
      const { rows } = await tx.query(
        `UPDATE session_bookings
            SET payment = 'paid', paid_at = ${sqlNow()}, paid_by = 'checkout',
                hold_expires_at = NULL, cancelled_at = NULL, cancelled_by = NULL,
                updated_at = ${sqlNow()}
          WHERE id = $1 AND payment = 'held' AND starts_at > ${sqlNow()}
            AND (cancelled_at IS NULL OR cancelled_by = $2)
      RETURNING starts_at, sequence`,
        [id, LAPSED_CHECKOUT],
      );
      await tx.query('RELEASE SAVEPOINT session_paid');
      const row = rows[0] as { starts_at: Date; sequence: number } | undefined;
      if (!row) return { outcome: 'taken', mails: [] };
      const mails: string[] = [];
      for (const mail of sessionMails(id, new Date(row.starts_at), Number(row.sequence))) {
        const queued = await outbox.enqueue(tx, mail.kind, mail.ref, { notBefore: mail.notBefore });
        if (queued && !mail.notBefore) mails.push(queued);
      }
      return { outcome: 'confirmed', mails };
    } catch (error) {
      if (!isSlotTaken(error)) throw error;
      await tx.query('ROLLBACK TO SAVEPOINT session_paid');
      return { outcome: 'taken', mails: [] };
    }
  },

  async release(tx, id) {
    await releaseSessionHold(tx, id);
    return [];
  },

  async tellRefunded(tx, refund, bookingId) {
    // The ref starts with the session's id, as every mail about a booking does (an erasure finds it).
    const queued = await outbox.enqueue(tx, 'payment-refunded', `${bookingId}:refund-${refund.id}`);
    return queued ? [queued] : [];
  },

  async tellStudioMismatch(tx, refund, bookingId) {
    const queued = await outbox.enqueue(tx, 'payment-mismatch', `${bookingId}:refund-${refund.id}`);
    return queued ? [queued] : [];
  },
});
