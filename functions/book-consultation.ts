import type { Config } from '@netlify/functions';
import { BOOKING_LABELS, bookingProblemNotice, bookingSchema } from '../src/shared/booking/form';
import { answerBooking, checkBooking, findRepeat, storeBooking } from '../src/server/booking/book';
import { bookingFunction } from '../src/server/bookings/pipeline';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { sendFormTo } from '../src/server/request/pages';
import { PAGES } from '../src/shared/site-paths';

export const config: Config = { path: '/api/consultation/book' };

/**
 * The booking form of /consultation: a free slot and the visitor's name and address in, the
 * booking stored (Postgres refuses a slot already held), the invites to the visitor and the
 * studio queued with it, and the reminder for a day before. Never paid for.
 */
export default bookingFunction({
  form: 'booking',
  maxBytes: 16 * 1024,
  schema: bookingSchema,
  noScript: {
    formPage: { href: PAGES.consultation, label: 'Return to the free times' },
    labels: BOOKING_LABELS,
    words: (problem) => bookingProblemNotice(problem, siteFacts().email),
    // A slot taken meanwhile: the browser sends the form again to the page that offers the
    // nearest free ones and keeps what was typed (src/pages/consultation/taken.astro).
    page: (problem) =>
      problem.status === 409 && Array.isArray(problem.details?.nearest)
        ? sendFormTo(PAGES.consultationTaken)
        : undefined,
  },
  outbox,
  repeat: findRepeat,
  check: checkBooking,
  store: (request, received, slot) => storeBooking(outbox, request, received, slot),
  queued: (booked) => (booked.repeat ? [] : booked.queued),
  answer: answerBooking,
});
