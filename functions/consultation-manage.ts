import type { Config, Context } from '@netlify/functions';
import { BOOKING_LABELS, bookingProblemNotice } from '../src/shared/booking/form';
import { changeBooking, showManagePage } from '../src/server/booking/manage';
import { outbox } from '../src/server/mail-kinds';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { siteFacts } from '../src/server/platform/site-facts';
import { problemPage } from '../src/server/request/pages';

export const config: Config = { path: '/consultation/manage' };

/**
 * The page of one booking, opened from the link in its mails (`?token=`): GET shows it and
 * changes nothing (mail scanners open links); POST moves it to another free slot or cancels it.
 */
export default async (req: Request, context?: Context): Promise<Response> => {
  try {
    if (req.method === 'POST') return await changeBooking(req, context, outbox);
    if (req.method === 'GET' || req.method === 'HEAD') return await showManagePage(req, context);
    return new Response('Method Not Allowed', {
      status: 405,
      headers: { allow: 'GET, HEAD, POST' },
    });
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    console.error(
      `/consultation/manage failed (${outage ? 'the database is unavailable' : (error as Error)?.name})`,
    );
    const status = outage ? 503 : 500;
    const problem = {
      status,
      error: outage
        ? 'Your consultation cannot be opened just now, so nothing was changed. Please try again in a minute.'
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      headers: outage ? { 'retry-after': '30' } : undefined,
    };
    return problemPage({
      problem,
      words: {
        ...bookingProblemNotice(problem, siteFacts().email),
        title: 'Your consultation cannot be opened just now',
      },
      labels: BOOKING_LABELS,
      formPage: { href: '/consultation', label: 'Return to the free times' },
    });
  }
};
