import type { Config } from '@netlify/functions';
import { SESSION_LABELS, SESSION_NOTICES } from '../src/shared/booking/session-form';
import { changeSession } from '../src/server/booking/session-manage';
import { sessionManagePath } from '../src/server/booking/session-store';
import { outbox } from '../src/server/mail-kinds';
import { readSetting } from '../src/server/platform/settings';
import { siteFacts } from '../src/server/platform/site-facts';
import { afterAnswer, guardPost, type FunctionContext } from '../src/server/request/guard';
import { linkFunction } from '../src/server/request/link-function';
import { problemPage, seeOther } from '../src/server/request/pages';
import { methodNotAllowed } from '../src/server/request/responses';
import type { Problem } from '../src/server/request/responses';

export const config: Config = { path: '/api/book-session/manage' };

const FORM_PAGE = { href: '/services', label: 'Return to the sessions' };

function refusal(problem: Problem, title = 'Your session was not changed') {
  return problemPage({
    problem,
    words: {
      title,
      text: problem.error,
      fallback: SESSION_NOTICES.failed.fallback(siteFacts().email),
    },
    labels: SESSION_LABELS,
    formPage: FORM_PAGE,
  });
}

/**
 * The manage page's forms (/book/manage?token=, the link in every mail about a session): POST
 * `action=cancel`, or `action=move` with a `slot`, within the cancellation policy; then 303 back
 * to the page, which shows the session as it now is. Refused outside the policy, with its words.
 * Only a POST acts: the page itself (GET) changes nothing.
 */
export default linkFunction(
  '/api/book-session/manage',
  {
    GET: () => Promise.resolve(methodNotAllowed('POST')),
    POST: async (req: Request, context?: FunctionContext) => {
      const guarded = await guardPost(req, context, {
        form: 'session',
        maxBytes: 8 * 1024,
        rateLimit: readSetting('CONSULTATION_RATE_LIMIT'),
      });
      if (!guarded.ok) return refusal(guarded.problem);
      const { body } = guarded.value;
      const result = await changeSession(body, outbox, siteFacts().email, (work) =>
        afterAnswer(context, work),
      );
      if (!result.ok) return refusal({ status: result.status, error: result.error });
      const path = sessionManagePath(String(body.token));
      return seeOther(result.done ? `${path}&done=${result.done}` : path);
    },
  },
  ({ outage, status, headers }) => ({
    problem: {
      status,
      error: outage
        ? 'Your session cannot be opened just now, so nothing was changed. Please try again in a minute.'
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      headers,
    },
    words: {
      title: 'Your session cannot be opened just now',
      text: outage
        ? 'Your session cannot be opened just now, so nothing was changed. Please try again in a minute.'
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      fallback: SESSION_NOTICES.failed.fallback(siteFacts().email),
    },
    labels: SESSION_LABELS,
    formPage: FORM_PAGE,
  }),
);
