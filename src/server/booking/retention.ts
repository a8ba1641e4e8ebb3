/**
 * How long consultations, their blocks of time and private or in-home sessions are kept: the
 * retention run's rules for this folder's tables (retention/rules.ts applies them in its order).
 */
import { rowsOf, type RetentionRule } from '../retention/rows';

export const BOOKING_RULES: readonly RetentionRule[] = [
  rowsOf({
    name: 'spamBookings',
    period: 'spam',
    keep: '30 days',
    what: ['consultation booking taken for spam', 'consultation bookings taken for spam'],
    from: 'from arrival',
    table: 'consultation_bookings',
    where: 't.spam_reason IS NOT NULL AND t.created_at < $1',
    mailsOf: 'booking',
  }),
  rowsOf({
    name: 'consultations',
    period: 'consultations',
    keep: '2 years',
    what: ['consultation', 'consultations'],
    from: 'from its time (or its cancellation, if later)',
    table: 'consultation_bookings',
    // GREATEST skips a NULL: a booking never cancelled counts from its end.
    where: 't.spam_reason IS NULL AND GREATEST(t.ends_at, t.cancelled_at) < $1',
    mailsOf: 'booking',
  }),
  rowsOf({
    name: 'consultationBlocks',
    period: 'consultations',
    keep: '2 years',
    what: ['block of consultation time', 'blocks of consultation time'],
    from: 'from its end',
    table: 'consultation_blocks',
    where: 'upper(t.span) < $1',
  }),
  rowsOf({
    name: 'spamSessions',
    period: 'spam',
    keep: '30 days',
    what: ['session booking taken for spam', 'session bookings taken for spam'],
    from: 'from arrival',
    table: 'session_bookings',
    where: 't.spam_reason IS NOT NULL AND t.created_at < $1',
    mailsOf: 'booking',
  }),
  rowsOf({
    // A private or in-home session: who booked it, where, paid or came. Its payment's record
    // (amount, Stripe's references, refunds; no name or address) stays for the accounts.
    name: 'bookedSessions',
    period: 'bookedSessions',
    keep: '2 years',
    what: ['private or in-home session', 'private and in-home sessions'],
    from: 'from its time (or its cancellation, if later)',
    table: 'session_bookings',
    where: 't.spam_reason IS NULL AND GREATEST(t.ends_at, t.cancelled_at) < $1',
    mailsOf: 'booking',
  }),
];
