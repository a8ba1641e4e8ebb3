import type { Config } from '@netlify/functions';
import { classLinkFault, cancelFromLink, showPlace } from '../src/server/classes/pages';
import { outbox } from '../src/server/mail-kinds';
import { linkFunction } from '../src/server/request/link-function';

export const config: Config = { path: '/classes/manage' };

/**
 * The page of one place in a class, opened from the link in its mails (`?token=`): GET shows it
 * and changes nothing (mail scanners open links); POST cancels it within the policy.
 */
export default linkFunction(
  '/classes/manage',
  { GET: (req) => showPlace(req), POST: (req) => cancelFromLink(req, outbox) },
  classLinkFault('Your place'),
);
