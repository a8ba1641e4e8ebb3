import type { Config } from '@netlify/functions';
import { CLASS_LABELS, classBookingSchema, classProblemNotice } from '../src/shared/classes/form';
import { PAGES } from '../src/shared/site-paths';
import { bookingFunction } from '../src/server/bookings/pipeline';
import { answerPlace, findPlaceRepeat, storePlace } from '../src/server/classes/book';
import { checkClassBooking } from '../src/server/classes/engine';
import { placeCheckout } from '../src/server/classes/payment';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';

export const config: Config = { path: '/api/classes/book' };

/**
 * A place in a small group class: the class (from the timetable in content, its price compared
 * with the price the page showed), the person; the place stored (Postgres refuses one too many),
 * the confirmation with its invite and the studio's notice queued with it. With the studio's
 * Stripe keys set, the place is held instead and the visitor sent to Stripe's page to pay the
 * class's price in content (src/server/classes/payment.ts); the mails wait for the payment.
 */
export default bookingFunction({
  form: 'class',
  maxBytes: 8 * 1024,
  schema: classBookingSchema,
  noScript: {
    formPage: { href: PAGES.classes, label: 'Return to the classes' },
    labels: CLASS_LABELS,
    words: (problem) => classProblemNotice(problem, siteFacts().email),
  },
  outbox,
  repeat: findPlaceRepeat,
  check: (request) => checkClassBooking(request),
  price: (chosen) => chosen.occurrence.priceCents,
  store: (request, received, chosen, hold) => storePlace(outbox, request, received, chosen, hold),
  queued: (stored) => stored.queued,
  checkout: (stored, received) => placeCheckout(stored, received.submissionId, outbox),
  answer: answerPlace,
});
