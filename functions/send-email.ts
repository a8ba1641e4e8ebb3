import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/shared/anti-spam';
import {
  CONTACT_LABELS,
  CONTACT_SENT_PAGE,
  contactProblemNotice,
  contactSchema,
} from '../src/shared/contact';
import { insertContactMessage } from '../src/server/contact/store';
import { siteFacts } from '../src/server/platform/site-facts';
import { outbox } from '../src/server/mail-kinds';
import { formFunction } from '../src/server/request/pipeline';

export const config: Config = { path: '/api/send-email' };

/** The contact form: the visitor's fields in, one mail to the studio's inbox out. */
export default formFunction({
  form: 'contact',
  maxBytes: 32 * 1024,
  rateLimit: 'CONTACT_RATE_LIMIT',
  minFillMs: MIN_FILL_MS.contact,
  schema: contactSchema,
  repeatsIn: 'contact_messages',
  insert: insertContactMessage,
  mails: ['contact'],
  outbox,
  noScript: {
    sentPage: CONTACT_SENT_PAGE,
    formPage: { href: '/contact', label: 'Return to the contact page' },
    labels: CONTACT_LABELS,
    words: (problem) => contactProblemNotice(problem, siteFacts().email),
  },
});
