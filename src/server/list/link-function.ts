import { siteFacts } from '../platform/site-facts';
import { linkFault } from '../request/link-function';
import type { Refused } from '../request/pages';
import { PAGES } from '../../shared/site-paths';

/**
 * The answer to a fault behind a link in the list's mail: an outage a 503 page that says nothing
 * was changed, any other fault a 500 page (request/link-function.ts).
 */
export function listLinkFault(path: string, error: unknown): Refused {
  return linkFault(path, error, ({ status, headers }) => ({
    problem: { status, error: '', headers },
    words: {
      title: 'This link cannot be opened just now',
      text: 'Nothing was changed. Please try again in a minute.',
      fallback: `Or write to ${siteFacts().email}`,
    },
    labels: {},
    formPage: { href: PAGES.events, label: 'Return to Events' },
  }));
}
