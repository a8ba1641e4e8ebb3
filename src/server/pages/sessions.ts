/**
 * What the pages about private and in-home sessions, rendered on demand
 * (src/pages/book/[type].astro and book/manage.astro), ask of the server: the one door from
 * src/pages into src/server for them (eslint.config.js).
 */
import type { Context } from '@netlify/functions';
import {
  SESSION_LABELS,
  SESSION_NOTICES,
  type SessionManageData,
  type SessionPageData,
} from '../../shared/booking/session-form';
import { PAGES } from '../../shared/site-paths';
import { changeSession, sessionManageData } from '../booking/session-manage';
import { sessionPageData } from '../booking/session-page';
import { sessionManagePath } from '../booking/session-store';
import { outbox } from '../mail-kinds';
import { PERSONAL } from '../platform/on-demand';
import { readSetting } from '../platform/settings';
import { siteFacts } from '../platform/site-facts';
import { afterAnswer, guardPost } from '../request/guard';
import { linkFault } from '../request/link-function';
import { refusalOf, seeOther, type Refused } from '../request/pages';
import type { Problem } from '../request/responses';
import { methodNotAllowed } from '../request/responses';

export { methodNotAllowed, PERSONAL };

/** The booking page of session type `id` now, or `undefined` for a type content does not offer. */
export function sessionBookingPage(
  id: string | undefined,
  context: Context | undefined,
): Promise<SessionPageData | undefined> {
  return id
    ? sessionPageData(id, { later: (work) => afterAnswer(context, work) })
    : Promise.resolve(undefined);
}

export type SessionManageAnswer =
  | { page: SessionManageData; done?: 'booked' | 'moved' | 'cancelled'; status: number }
  | { response: Response }
  | Refused;

const FORM_PAGE = { href: PAGES.services, label: 'Return to the sessions' };

function fault(title: string, problem: Problem) {
  return {
    problem,
    words: {
      title,
      text: problem.error,
      fallback: SESSION_NOTICES.failed.fallback(siteFacts().email),
    },
    labels: SESSION_LABELS,
    formPage: FORM_PAGE,
  };
}

const DONE = ['booked', 'moved', 'cancelled'] as const;

/**
 * The page of one session, opened from the link in its mails (`?token=`): GET shows it and
 * changes nothing; POST (its own forms) cancels or moves it within the cancellation policy, then
 * comes back here (303), or shows the page again with what was refused. A fault is logged by name
 * only and answered with a page saying so.
 */
export async function sessionManageAnswer(
  request: Request,
  context: Context | undefined,
): Promise<SessionManageAnswer> {
  try {
    const url = new URL(request.url);
    if (request.method === 'GET' || request.method === 'HEAD') {
      const token = url.searchParams.get('token');
      if (token === null && url.searchParams.get('repeat') !== null) {
        return { page: { found: false, repeat: true }, status: 200 };
      }
      const page = await sessionManageData(token);
      const said =
        url.searchParams.get('booked') !== null ? 'booked' : url.searchParams.get('done');
      const done = DONE.find((word) => word === said);
      return { page, ...(done ? { done } : {}), status: page.found ? 200 : 404 };
    }
    if (request.method !== 'POST') return { response: methodNotAllowed('GET, HEAD, POST') };
    const guarded = await guardPost(request, context, {
      form: 'session',
      maxBytes: 8 * 1024,
      rateLimit: readSetting('BOOKING_RATE_LIMIT'),
    });
    if (!guarded.ok) {
      return refusalOf(fault('Your session was not changed', guarded.problem));
    }
    const { body } = guarded.value;
    const result = await changeSession(body, outbox, siteFacts().email, (work) =>
      afterAnswer(context, work),
    );
    if (result.ok) {
      const path = sessionManagePath(String(body.token));
      return { response: seeOther(result.done ? `${path}&done=${result.done}` : path) };
    }
    const page = await sessionManageData(body.token);
    return {
      page: page.found ? { ...page, problem: result.error } : page,
      status: result.status,
    };
  } catch (error) {
    return linkFault(PAGES.sessionManage, error, ({ outage, status, headers }) =>
      fault('Your session cannot be opened just now', {
        status,
        error: outage
          ? 'Your session cannot be opened just now, so nothing was changed. Please try again in a minute.'
          : 'Something went wrong on our side, so nothing was changed. Please try again.',
        headers,
      }),
    );
  }
}
