import { PAGES } from '../src/shared/site-paths';
import type { Config } from '@netlify/functions';
import { CLASS_LABELS, classProblemNotice } from '../src/shared/classes/form';
import { cancelFromLink, showPlace } from '../src/server/classes/pages';
import { outbox } from '../src/server/mail-kinds';
import { siteFacts } from '../src/server/platform/site-facts';
import { linkFunction } from '../src/server/request/link-function';

export const config: Config = { path: '/classes/manage' };

/**
 * The page of one place in a class, opened from the link in its mails (`?token=`): GET shows it
 * and changes nothing (mail scanners open links); POST cancels it within the policy.
 */
export default linkFunction(
  '/classes/manage',
  { GET: (req) => showPlace(req), POST: (req) => cancelFromLink(req, outbox) },
  ({ outage, status, headers }) => {
    const problem = {
      status,
      error: outage
        ? 'Your place cannot be opened just now, so nothing was changed. Please try again in a minute.'
        : 'Something went wrong on our side, so nothing was changed. Please try again.',
      headers,
    };
    return {
      problem,
      words: {
        ...classProblemNotice(problem, siteFacts().email),
        title: 'Your place cannot be opened just now',
      },
      labels: CLASS_LABELS,
      formPage: { href: PAGES.classes, label: 'Return to the classes' },
    };
  },
);
