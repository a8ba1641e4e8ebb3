import type { Config } from '@netlify/functions';
import {
  SESSION_LABELS,
  SESSION_NOTICES,
  sessionBookingSchema,
} from '../src/shared/booking/session-form';
import { FIX_BELOW } from '../src/shared/form-answer';
import { PAGES } from '../src/shared/site-paths';
import {
  answerSession,
  checkSession,
  findSessionRepeat,
  storeSession,
} from '../src/server/booking/session-book';
import { sessionCheckout } from '../src/server/booking/session-checkout';
import { bookingFunction } from '../src/server/bookings/pipeline';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';

export const config: Config = { path: '/api/book-session' };

/**
 * The booking form of a private or in-home session (/book/<type>): the session type, a free
 * time, the visitor's name and address (and where, for a session at their home) in; the price
 * taken from content alone (a posted price that differs, or an unknown type: 422, nothing
 * stored); the booking stored (Postgres refuses time any booking already holds) with the invites
 * to the visitor and the studio queued in the same transaction, and the reminder for a day before.
 * With the studio's Stripe keys set, the time is held instead and the visitor sent to Stripe's
 * page to pay (src/server/booking/session-checkout.ts); the mails wait for the payment.
 */
export default bookingFunction({
  form: 'session',
  maxBytes: 16 * 1024,
  schema: sessionBookingSchema,
  noScript: {
    formPage: { href: PAGES.services, label: 'Return to the sessions' },
    labels: SESSION_LABELS,
    words: (problem) => ({
      title: SESSION_NOTICES.failed.title,
      text: problem.fieldErrors ? FIX_BELOW : problem.error,
      fallback: SESSION_NOTICES.failed.fallback(siteFacts().email),
    }),
  },
  outbox,
  repeat: findSessionRepeat,
  check: checkSession,
  price: ({ type }) => type.price,
  store: (request, received, { type, slot }, hold) =>
    storeSession(outbox, request, received, type, slot, hold),
  queued: (booked) => (booked.repeat ? [] : booked.queued),
  checkout: (booked) => sessionCheckout(booked.booking),
  answer: answerSession,
});
