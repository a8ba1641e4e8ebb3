import { PAGES } from '../src/shared/site-paths';
import type { Config } from '@netlify/functions';
import { CLASS_LABELS, classProblemNotice } from '../src/shared/classes/form';
import { claimFromLink, showOffer } from '../src/server/classes/pages';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { linkFunction } from '../src/server/request/link-function';

export const config: Config = { path: '/classes/claim' };

/**
 * A waitlist offer, opened from the link in its mail (`?token=`): GET shows the place held and
 * until when, changing nothing; POST claims it while the offer holds (a repeat changes nothing).
 */
export default linkFunction(
  '/classes/claim',
  { GET: (req) => showOffer(req), POST: (req) => claimFromLink(req, outbox) },
  ({ outage, status, headers }) => {
    const problem = {
      status,
      error: outage
        ? 'The offer cannot be opened just now, so nothing was changed. Please try again in a minute.'
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      headers,
    };
    return {
      problem,
      words: {
        ...classProblemNotice(problem, siteFacts().email),
        title: 'The offer cannot be opened just now',
      },
      labels: CLASS_LABELS,
      formPage: { href: PAGES.classes, label: 'Return to the classes' },
    };
  },
);
