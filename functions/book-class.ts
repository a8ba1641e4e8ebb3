import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/shared/anti-spam';
import {
  CLASS_LABELS,
  CLASSES_PAGE,
  classBookingSchema,
  classProblemNotice,
} from '../src/shared/classes/form';
import { bookPlace, checkClassBooking, placeMails } from '../src/server/classes/engine';
import { classAnswer, classConflict, placeLocation } from '../src/server/classes/answers';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { formFunction } from '../src/server/request/pipeline';

export const config: Config = { path: '/api/classes/book' };

/**
 * A place in a small group class: the class (from the timetable in content, its price compared
 * with the price the page showed), the person; the place stored (Postgres refuses one too many),
 * the confirmation with its invite and the studio's notice queued with it.
 */
export default formFunction({
  form: 'class',
  maxBytes: 8 * 1024,
  rateLimit: 'CONSULTATION_RATE_LIMIT',
  minFillMs: MIN_FILL_MS.class,
  schema: classBookingSchema,
  check: (data) => checkClassBooking(data),
  insert: async (tx, data, received, checked) => {
    const stored = await bookPlace(tx, data, received, checked);
    checked.madeDate = stored.madeDate;
    return stored.id;
  },
  mails: ['class-visitor', 'class-studio', 'class-reminder', 'class-calendar'],
  queue: (id, _data, checked) => [
    ...placeMails(id, checked.occurrence.start),
    ...(checked.madeDate
      ? [{ kind: 'class-calendar' as const, ref: `${checked.madeDate}:0` }]
      : []),
  ],
  conflict: classConflict,
  answer: async (ref, _data, received) => {
    const location = await placeLocation(ref, received.submissionId);
    return classAnswer(location);
  },
  outbox,
  noScript: {
    sentPage: CLASSES_PAGE,
    formPage: { href: CLASSES_PAGE, label: 'Return to the classes' },
    labels: CLASS_LABELS,
    words: (problem) => classProblemNotice(problem, siteFacts().email),
  },
});
