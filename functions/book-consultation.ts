import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/shared/anti-spam';
import {
  BOOKING_LABELS,
  MANAGE_PAGE,
  bookingProblemNotice,
  bookingSchema,
  type OfferedSlot,
} from '../src/shared/booking/form';
import {
  bookingAnswer,
  bookingConflict,
  bookingMails,
  checkBooking,
  upcomingCaps,
} from '../src/server/booking/book';
import { insertBooking } from '../src/server/booking/store';
import { takenPage } from '../src/server/booking/pages';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { formFunction } from '../src/server/request/pipeline';

export const config: Config = { path: '/api/consultation/book' };

/**
 * The booking form of /consultation: a free slot and the visitor's name and address in, the
 * booking stored (Postgres refuses a slot already held), the invites to the visitor and the
 * studio queued with it, and the reminder for a day before.
 */
export default formFunction({
  form: 'booking',
  maxBytes: 16 * 1024,
  rateLimit: 'CONSULTATION_RATE_LIMIT',
  minFillMs: MIN_FILL_MS.booking,
  schema: bookingSchema,
  check: checkBooking,
  repeatsIn: 'consultation_bookings',
  insert: (tx, request, received, checked) =>
    'slot' in checked
      ? insertBooking(tx, request, received, checked.slot, upcomingCaps())
      : Promise.resolve(undefined),
  mails: ['booking-visitor', 'booking-studio', 'booking-reminder'],
  queue: (id, _request, checked) =>
    'slot' in checked ? bookingMails(id, checked.slot.start, 0) : [],
  conflict: bookingConflict,
  answer: bookingAnswer,
  outbox,
  noScript: {
    sentPage: MANAGE_PAGE,
    formPage: { href: '/consultation', label: 'Return to the free times' },
    labels: BOOKING_LABELS,
    words: (problem) => bookingProblemNotice(problem, siteFacts().email),
    page: (problem, typed, req) =>
      problem.status === 409 && Array.isArray(problem.details?.nearest)
        ? takenPage(problem.details.nearest as OfferedSlot[], typed, req)
        : undefined,
  },
});
