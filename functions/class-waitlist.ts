import type { Config } from '@netlify/functions';
import { CLASS_LABELS, classProblemNotice, waitlistSchema } from '../src/shared/classes/form';
import { PAGES } from '../src/shared/site-paths';
import { answerWaitlist, storeWaitlist } from '../src/server/classes/book';
import { checkWaitlist } from '../src/server/classes/engine';
import { outbox } from '../src/server/mail-kinds';
import { readSetting } from '../src/server/platform/settings';
import { siteFacts } from '../src/server/platform/site-facts';
import { guardPost, type FunctionContext } from '../src/server/request/guard';
import { deliver, fault, parse, receive, refuse, type NoScript } from '../src/server/request/steps';

export const config: Config = { path: '/api/classes/waitlist' };

const NO_SCRIPT: NoScript = {
  formPage: { href: PAGES.classes, label: 'Return to the classes' },
  labels: CLASS_LABELS,
  words: (problem) => classProblemNotice(problem, siteFacts().email),
};

/**
 * The waitlist of a full class: the person joins it in the order they came, and gets a mail
 * saying so; when a place frees before the class's cutoff, the first person waiting is offered it.
 */
export default async function classWaitlist(req: Request, context?: FunctionContext) {
  try {
    const posted = await guardPost(req, context, {
      form: 'class',
      maxBytes: 8 * 1024,
      rateLimit: readSetting('BOOKING_RATE_LIMIT'),
    });
    if (!posted.ok) return await refuse(req, posted.problem, NO_SCRIPT);
    const { body } = posted.value;
    const request = parse(waitlistSchema, body);
    if (!request.ok) return await refuse(req, request.problem, NO_SCRIPT);
    const received = receive('class', posted.value, body, request.value, context);
    const chosen = await checkWaitlist(request.value);
    if (!chosen.ok) return await refuse(req, chosen.problem, NO_SCRIPT);
    const stored = await storeWaitlist(outbox, request.value, received, chosen.value);
    if (!stored.ok) return await refuse(req, stored.problem, NO_SCRIPT);
    await deliver(context, outbox, stored.value.queued);
    return await answerWaitlist(stored.value, received);
  } catch (error) {
    return refuse(req, fault('class', error), NO_SCRIPT);
  }
}
