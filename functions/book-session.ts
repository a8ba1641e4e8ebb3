import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/shared/anti-spam';
import {
  SESSION_LABELS,
  SESSION_MANAGE_PAGE,
  SESSION_NOTICES,
  sessionBookingSchema,
} from '../src/shared/booking/session-form';
import { FIX_BELOW } from '../src/shared/form-answer';
import {
  checkSessionBooking,
  sessionAnswer,
  sessionConflict,
  sessionMails,
} from '../src/server/booking/session-book';
import { insertSession } from '../src/server/booking/session-store';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { formFunction } from '../src/server/request/pipeline';

export const config: Config = { path: '/api/book-session' };

/**
 * The booking form of a private or in-home session (/book/<type>): the session type, a free
 * time, the visitor's name and address (and where, for a session at their home) in; the price
 * taken from content alone (a posted price that differs, or an unknown type: 422, nothing
 * stored); the booking stored (Postgres refuses time any booking already holds) with the invites
 * to the visitor and the studio queued in the same transaction, and the reminder for a day before.
 */
export default formFunction({
  form: 'session',
  maxBytes: 16 * 1024,
  rateLimit: 'CONSULTATION_RATE_LIMIT',
  minFillMs: MIN_FILL_MS.session,
  schema: sessionBookingSchema,
  check: checkSessionBooking,
  insert: (tx, request, received, checked) =>
    'slot' in checked
      ? insertSession(tx, request, received, checked.type, checked.slot)
      : Promise.resolve(undefined),
  mails: ['session-visitor', 'session-studio', 'session-reminder'],
  queue: (id, _request, checked) =>
    'slot' in checked ? sessionMails(id, checked.slot.start, 0) : [],
  conflict: sessionConflict,
  answer: sessionAnswer,
  outbox,
  noScript: {
    sentPage: SESSION_MANAGE_PAGE,
    formPage: { href: '/services', label: 'Return to the sessions' },
    labels: SESSION_LABELS,
    words: (problem) => ({
      title: SESSION_NOTICES.failed.title,
      text: problem.fieldErrors ? FIX_BELOW : problem.error,
      fallback: SESSION_NOTICES.failed.fallback(siteFacts().email),
    }),
  },
});
