import type { Config } from '@netlify/functions';
import { BOOKING_LABELS, bookingProblemNotice } from '../src/shared/booking/form';
import { changeBooking, showManagePage } from '../src/server/booking/manage';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { linkFunction } from '../src/server/request/link-function';
import { PAGES } from '../src/shared/site-paths';

export const config: Config = { path: '/consultation/manage' };

/**
 * The page of one booking, opened from the link in its mails (`?token=`): GET shows it and
 * changes nothing (mail scanners open links); POST moves it to another free slot or cancels it.
 */
export default linkFunction(
  PAGES.manage,
  {
    GET: (req, context) => showManagePage(req, context),
    POST: (req, context) => changeBooking(req, context, outbox),
  },
  ({ outage, status, headers }) => {
    const problem = {
      status,
      error: outage
        ? 'Your consultation cannot be opened just now, so nothing was changed. Please try again in a minute.'
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      headers,
    };
    return {
      problem,
      words: {
        ...bookingProblemNotice(problem, siteFacts().email),
        title: 'Your consultation cannot be opened just now',
      },
      labels: BOOKING_LABELS,
      formPage: { href: PAGES.consultation, label: 'Return to the free times' },
    };
  },
);
