import type { Config } from '@netlify/functions';
import { CONTACT_LABELS, contactProblemNotice, contactSchema } from '../src/shared/contact';
import { storeMessage } from '../src/server/contact/store';
import { outbox } from '../src/server/mail-kinds';
import { readSetting } from '../src/server/platform/settings';
import { siteFacts } from '../src/server/platform/site-facts';
import { guardPost, type FunctionContext } from '../src/server/request/guard';
import {
  answer,
  deliver,
  fault,
  parse,
  receive,
  refuse,
  type NoScript,
} from '../src/server/request/steps';
import { PAGES } from '../src/shared/site-paths';

export const config: Config = { path: '/api/send-email' };

const NO_SCRIPT: NoScript = {
  formPage: { href: PAGES.contact, label: 'Return to the contact page' },
  labels: CONTACT_LABELS,
  words: (problem) => contactProblemNotice(problem, siteFacts().email),
};

/** The contact form: the visitor's fields in, one mail to the studio's inbox out. */
export default async function sendEmail(req: Request, context?: FunctionContext) {
  try {
    const posted = await guardPost(req, context, {
      form: 'contact',
      maxBytes: 32 * 1024,
      rateLimit: readSetting('CONTACT_RATE_LIMIT'),
    });
    if (!posted.ok) return await refuse(req, posted.problem, NO_SCRIPT);
    const { body } = posted.value;
    const message = parse(contactSchema, body);
    if (!message.ok) return await refuse(req, message.problem, NO_SCRIPT);
    const received = receive('contact', posted.value, body, message.value, context);
    const queued = await storeMessage(outbox, message.value, received);
    if (!queued.ok) return await refuse(req, queued.problem, NO_SCRIPT);
    await deliver(context, outbox, queued.value);
    return answer(received, PAGES.contactSent);
  } catch (error) {
    return refuse(req, fault('contact', error), NO_SCRIPT);
  }
}
