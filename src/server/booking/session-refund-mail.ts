/**
 * The visitor's mail when their payment for a session came after its time went to someone else
 * (session-payment.ts): what was refunded, why, and where to book another time.
 */
import { mailBody } from '../mail/blocks';
import { refundToTell } from '../payments/store';
import { contactRecipient, type Mail } from '../platform/mail';
import { siteFacts } from '../platform/site-facts';
import * as zoned from '../../shared/booking/zoned';
import { fullDateLabel, timeLabel, zoneName } from '../../shared/time-format';
import { firstName } from './mail';
import { sessionPolicy } from './policy';
import { dollars } from '../../shared/money';
import { loadSession } from './session-store';

/** Composed from `<session id>:refund-<refund id>`. */
export async function sessionRefundedMail(ref: string): Promise<Mail | undefined> {
  const refund = await refundToTell(ref, 'session');
  const booking = refund && (await loadSession(refund.bookingId));
  if (!refund || !booking) return undefined;
  const studio = siteFacts();
  const { timeZone } = sessionPolicy();
  const start = zoned.instantOf(booking.start);
  const day = `${fullDateLabel(start, timeZone)}, ${timeLabel(start, timeZone)} (${zoneName(timeZone)})`;
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
