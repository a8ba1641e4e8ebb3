import { randomUUID } from 'node:crypto';
import type { Config } from '@netlify/functions';
import { FIX_BELOW } from '../src/shared/form-answer';
import { LIST_LABELS, LIST_WORDS, listSchema } from '../src/shared/list';
import { outbox } from '../src/server/mail-kinds';
import { storeSignUp } from '../src/server/list/store';
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

export const config: Config = { path: '/api/notify' };

const NO_SCRIPT: NoScript = {
  formPage: { href: PAGES.events, label: 'Return to Events' },
  labels: LIST_LABELS,
  words: (problem) => ({
    title: LIST_WORDS.failed.title,
    text: problem.fieldErrors ? FIX_BELOW : problem.error,
    fallback: LIST_WORDS.failed.fallback(siteFacts().email),
  }),
};

/**
 * Get Notified: an address in, one confirmation mail to it out (double opt-in). The answer is
 * the same for a new address, a known one, one that left the list, and spam.
 */
export default async function listSignUp(req: Request, context?: FunctionContext) {
  try {
    const posted = await guardPost(req, context, {
      form: 'list',
      maxBytes: 4 * 1024,
      rateLimit: readSetting('LIST_RATE_LIMIT'),
    });
    if (!posted.ok) return await refuse(req, posted.problem, NO_SCRIPT);
    const { body, format } = posted.value;
    // A post without script brings no submission id; a repeat is found by its address (store.ts).
    const fields = format === 'form' ? { email: body.email, submissionId: randomUUID() } : body;
    const signUp = parse(listSchema, fields);
    if (!signUp.ok) return await refuse(req, signUp.problem, NO_SCRIPT);
    const received = receive('list', posted.value, fields, signUp.value, context);
    const queued = await storeSignUp(outbox, signUp.value, received);
    if (!queued.ok) return await refuse(req, queued.problem, NO_SCRIPT);
    await deliver(context, outbox, queued.value);
    return answer(received, PAGES.listSent);
  } catch (error) {
    return refuse(req, fault('list', error), NO_SCRIPT);
  }
}
