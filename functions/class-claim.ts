import type { Config } from '@netlify/functions';
import { classLinkFault, claimFromLink, showOffer } from '../src/server/classes/pages';
import { outbox } from '../src/server/mail-kinds';
import { linkFunction } from '../src/server/request/link-function';

export const config: Config = { path: '/classes/claim' };

/**
 * A waitlist offer, opened from the link in its mail (`?token=`): GET shows the place held and
 * until when, changing nothing; POST claims it while the offer holds (a repeat changes nothing).
 */
export default linkFunction(
  '/classes/claim',
  { GET: (req) => showOffer(req), POST: (req) => claimFromLink(req, outbox) },
  classLinkFault('The offer'),
);
