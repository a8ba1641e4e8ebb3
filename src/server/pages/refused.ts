/**
 * What the page telling a visitor without script why their form was not accepted
 * (src/pages/refused.astro, rendered on demand) asks of the server: the refusal the form's
 * function wrote into its address (request/refusal-link.ts), or, for an address the site did not
 * write, a `303` to the home page. GET and HEAD only: nothing is posted here.
 */
import { PERSONAL } from '../platform/on-demand';
import type { Refused } from '../request/pages';
import { readRefusalLink } from '../request/refusal-link';
import { methodNotAllowed } from '../request/responses';
import { seeOther } from '../request/pages';
import { PAGES } from '../../shared/site-paths';

export { PERSONAL };

export function refusedPage(request: Request): Refused | { response: Response } {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { response: methodNotAllowed('GET, HEAD') };
  }
  return readRefusalLink(new URL(request.url)) ?? { response: seeOther(PAGES.home) };
}
