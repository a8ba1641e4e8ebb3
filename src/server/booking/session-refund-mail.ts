/**
 * The visitor's mail of a refund of their payment for a session: when it came after its time
 * went to someone else (session-payment.ts), what was refunded, why, and where to book another
 * time; when the instructor refunded it on the desk, the booking left as it is, how much.
 */
import { mailBody } from '../mail/blocks';
import {
  deskRefundWords,
  mismatchWords,
  refundToTell,
  studioRefundComposer,
} from '../payments/store';
import { contactRecipient, type Mail } from '../platform/mail';
import { nothingToSend, type NothingToSend } from '../platform/outbox';
import { siteFacts } from '../platform/site-facts';
import * as zoned from '../../shared/booking/zoned';
import { fullDateLabel, timeLabel, zoneName } from '../../shared/time-format';
import { firstName } from './appointment-mail';
import { kindOf } from './session-mail';
import { sessionPolicy } from './policy';
import { dollars } from '../../shared/money';
import { loadSession } from './session-store';

/** Composed from `<session id>:refund-<refund id>`. */
export async function sessionRefundedMail(ref: string): Promise<Mail | NothingToSend | undefined> {
  const refund = await refundToTell(ref, 'session');
  const booking = refund && (await loadSession(refund.bookingId));
  if (!refund || !booking) return undefined;
  const studio = siteFacts();
  const { timeZone } = sessionPolicy();
  const start = zoned.instantOf(booking.start);
  const day = `${fullDateLabel(start, timeZone)}, ${timeLabel(start, timeZone)} (${zoneName(timeZone)})`;
  // Stripe refused it: nothing was refunded, so nothing is told.
  if (refund.state === 'failed') return nothingToSend('Stripe refused the refund');
  if (refund.reason === 'mismatch') {
    return {
      to: booking.email,
      subject: `Refunded: your payment for ${day}`,
      ...mailBody(
        [
          `Hello ${firstName(booking.name)},`,
          mismatchWords(refund, `the ${kindOf(booking)} on ${day}`),
          {
            text: 'To book a time again:',
            link: `${booking.origin}/book/${booking.type}`,
            label: `Book a ${kindOf(booking)}`,
          },
          `${studio.instructor}, ${studio.name}`,
        ],
        [],
      ),
      replyTo: contactRecipient(),
    };
  }
  if (refund.reason === 'studio') {
    const full = refund.amountCents >= refund.paidCents;
    return {
      to: booking.email,
      subject: `Refunded: ${full ? 'your payment' : `${dollars(refund.amountCents)} of your payment`} for ${day}`,
      ...mailBody(
        [
          `Hello ${firstName(booking.name)},`,
          deskRefundWords(
            studio.instructor,
            refund,
            `the ${booking.title.toLowerCase()} on ${day}`,
          ),
          ...(booking.cancelledAt ? [] : ['Your booking is unchanged.']),
          `${studio.instructor}, ${studio.name}`,
        ],
        [],
      ),
      replyTo: contactRecipient(),
    };
  }
  return {
    to: booking.email,
    subject: `Refunded: your payment for ${day}`,
    ...mailBody(
      [
        `Hello ${firstName(booking.name)},`,
        `Your payment for the ${booking.title.toLowerCase()} on ${day} reached us after the time held for you had run out, and the time has since been booked. We could not keep it for you, so your payment of ${dollars(refund.amountCents)} has been refunded in full. It reaches your card in 5 to 10 days.`,
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

/** The studio's mail about a refund of a session's payment (`studioRefundComposer`). */
export const sessionStudioRefundMail = studioRefundComposer('session', async (id) => {
  const booking = await loadSession(id);
  if (!booking) return undefined;
  const { timeZone } = sessionPolicy();
  const start = zoned.instantOf(booking.start);
  const day = `${fullDateLabel(start, timeZone)}, ${timeLabel(start, timeZone)} (${zoneName(timeZone)})`;
  return { person: booking, what: `the ${kindOf(booking)} on ${day}` };
});
