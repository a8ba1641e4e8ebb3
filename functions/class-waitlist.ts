import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/shared/anti-spam';
import {
  CLASS_LABELS,
  CLASS_WAITING_PAGE,
  CLASSES_PAGE,
  classProblemNotice,
  waitlistSchema,
} from '../src/shared/classes/form';
import { checkWaitlist, joinClassWaitlist, WAIT_MAIL } from '../src/server/classes/engine';
import { classConflict } from '../src/server/classes/answers';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { formFunction } from '../src/server/request/pipeline';

export const config: Config = { path: '/api/classes/waitlist' };

/**
 * The waitlist of a full class: the person joins it in the order they came, and gets a mail
 * saying so; when a place frees before the class's cutoff, the first person waiting is offered it.
 */
export default formFunction({
  form: 'class',
  maxBytes: 8 * 1024,
  rateLimit: 'CONSULTATION_RATE_LIMIT',
  minFillMs: MIN_FILL_MS.class,
  schema: waitlistSchema,
  check: (data) => checkWaitlist(data),
  // A class with a waitlist is full, so it is stored already: joining never makes its date.
  insert: async (tx, data, received, checked) =>
    (await joinClassWaitlist(tx, data, received, checked)).id,
  mails: ['class-waitlist'],
  queue: (id) => [{ kind: 'class-waitlist' as const, ref: `${id}:${WAIT_MAIL.joined}` }],
  conflict: classConflict,
  answer: () => Promise.resolve({ location: CLASS_WAITING_PAGE }),
  outbox,
  noScript: {
    sentPage: CLASS_WAITING_PAGE,
    formPage: { href: CLASSES_PAGE, label: 'Return to the classes' },
    labels: CLASS_LABELS,
    words: (problem) => classProblemNotice(problem, siteFacts().email),
  },
});
