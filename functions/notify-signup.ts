import { randomUUID } from 'node:crypto';
import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/shared/anti-spam';
import { FIX_BELOW } from '../src/shared/form-answer';
import { NOTIFY_LABELS, NOTIFY_SENT_PAGE, NOTIFY_WORDS, notifySchema } from '../src/shared/notify';
import { outbox } from '../src/server/mail-kinds';
import { holdBackConfirmation, insertSignUp } from '../src/server/notify/store';
import { siteFacts } from '../src/server/platform/site-facts';
import { formFunction } from '../src/server/request/pipeline';

export const config: Config = { path: '/api/notify' };

// Nobody types an address and presses the button faster (a post without script is untimed).

/**
 * Get Notified: an address in, one confirmation mail to it out (double opt-in). The answer is
 * the same for a new address, a known one, one that left the list, and spam.
 */
export default formFunction({
  form: 'notify',
  maxBytes: 4 * 1024,
  rateLimit: 'NOTIFY_RATE_LIMIT',
  minFillMs: MIN_FILL_MS.notify,
  schema: notifySchema,
  // A post without script brings no submission id; a repeat is found by its address (store.ts).
  fromForm: (body) => ({ email: body.email, submissionId: randomUUID() }),
  insert: insertSignUp,
  mails: ['list-confirm'],
  holdBack: (tx, _kind, data) => holdBackConfirmation(tx, data.email),
  outbox,
  noScript: {
    sentPage: NOTIFY_SENT_PAGE,
    formPage: { href: '/events', label: 'Return to Events' },
    labels: NOTIFY_LABELS,
    words: (problem) => ({
      title: NOTIFY_WORDS.failed.title,
      text: problem.fieldErrors ? FIX_BELOW : problem.error,
      fallback: NOTIFY_WORDS.failed.fallback(siteFacts().email),
    }),
  },
});
