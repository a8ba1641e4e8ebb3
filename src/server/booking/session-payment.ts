/**
 * A private or in-home session paid online (src/server/payments/webhook.ts): held while its
 * checkout is open (`payment = 'held'` until `hold_expires_at`), confirmed when Stripe says it is
 * paid, released when the checkout lapses. A payment that comes after the hold lapsed takes the
 * time again when it is still free; Postgres refuses it when another booking holds it (23P01),
 * and then the payment is refunded.
 */
import * as zoned from '../../shared/booking/zoned';
import { mailBody } from '../mail/blocks';
import { outbox } from '../mail-kinds';
import type { PayableKind } from '../payments/webhook';
import { sqlNow } from '../platform/clock';
import { query, type Queryable } from '../platform/db';
import { contactRecipient, type Mail } from '../platform/mail';
import { siteFacts } from '../platform/site-facts';
import { firstName } from './mail';
import { sessionPolicy } from './policy';
import { sessionMails } from './session-book';
import { dollarsText } from './session-mail';
import { loadSession } from './session-store';
import { isSlotTaken } from './store';

/** Who released a hold whose checkout lapsed, in `cancelled_by`. */
export const LAPSED_CHECKOUT = 'checkout';

export const sessionPayable: PayableKind = {
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
    await tx.query(
      `UPDATE session_bookings
          SET cancelled_at = ${sqlNow()}, cancelled_by = $2, updated_at = ${sqlNow()}
        WHERE id = $1 AND payment = 'held' AND cancelled_at IS NULL`,
      [id, LAPSED_CHECKOUT],
    );
  },

  async tellRefunded(tx, refund) {
    const queued = await outbox.enqueue(tx, 'payment-refunded', refund.id);
    return queued ? [queued] : [];
  },
};

/**
 * Releases every session whose hold lapsed by now (its checkout's `expires_at` passed, and no
 * payment event came): run before a booking is stored, so an abandoned checkout never keeps a
 * time from the next visitor, and on the studio's clock by the scheduled sweep.
 */
export async function releaseLapsedSessionHolds(tx: Queryable): Promise<number> {
  const { rows } = await tx.query(
    `UPDATE session_bookings
        SET cancelled_at = ${sqlNow()}, cancelled_by = $1, updated_at = ${sqlNow()}
      WHERE payment = 'held' AND cancelled_at IS NULL AND hold_expires_at <= ${sqlNow()}
  RETURNING id`,
    [LAPSED_CHECKOUT],
  );
  return rows.length;
}

/**
 * The visitor's mail when their payment came after their place went (ref: the refund's id):
 * what was refunded, why, and where to book another time.
 */
export async function sessionRefundedMail(ref: string): Promise<Mail | undefined> {
  const [refund] = await query<{ booking_id: string; amount_cents: number }>(
    `SELECT p.booking_id, r.amount_cents FROM payment_refunds r JOIN payments p ON p.id = r.payment_id
      WHERE r.id = $1 AND p.booking_kind = 'session'`,
    [ref],
  );
  const booking = refund && (await loadSession(refund.booking_id));
  if (!refund || !booking) return undefined;
  const studio = siteFacts();
  const { timeZone } = sessionPolicy();
  const start = zoned.instantOf(booking.start);
  const day = `${zoned.fullDateLabel(start, timeZone)}, ${zoned.timeLabel(start, timeZone)} (${zoned.zoneName(timeZone)})`;
  return {
    to: booking.email,
    subject: `Refunded: your payment for ${day}`,
    ...mailBody(
      [
        `Hello ${firstName(booking.name)},`,
        `Your payment for the ${booking.title.toLowerCase()} on ${day} reached us after the time held for you had run out, and the time has since been booked. We could not keep it for you, so your payment of ${dollarsText(Number(refund.amount_cents))} has been refunded in full. It reaches your card in 5 to 10 days.`,
        {
          text: 'To book another time:',
          link: `${booking.origin}/book/${booking.type}`,
          label: `Book a ${booking.title.toLowerCase().replace(/s$/, '')}`,
        },
        `${studio.instructor}, ${studio.name}`,
      ],
      [],
    ),
    replyTo: contactRecipient(),
  };
}
