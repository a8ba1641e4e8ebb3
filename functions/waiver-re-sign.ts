import type { Config } from '@netlify/functions';
import { RE_SIGN_EXPIRED, RE_SIGN_SPENT, RE_SIGN_UNKNOWN } from '../src/shared/waiver';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { isSameOrigin, postFormat, readBody } from '../src/server/request/guard';
import { API_SECURITY_HEADERS } from '../src/server/request/responses';
import { reSignFor } from '../src/server/waiver/re-sign';

export const config: Config = { path: '/api/waiver/re-sign' };

const PRIVATE = {
  ...API_SECURITY_HEADERS,
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'no-referrer',
};

const answer = (status: number, body: object, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { ...PRIVATE, ...headers } });

const refuse = (status: number, error: string, headers: Record<string, string> = {}) =>
  answer(status, { success: false, error }, headers);

/**
 * What the link of a re-sign request fills the waiver form with: the participant's name and
 * e-mail address as they last signed (never their health information), and the version they are
 * asked to sign with what changed in it. The token comes from the link's fragment, which the page
 * sends here in a POST's JSON body (`{ token }`), never in a path or a query that server and CDN
 * logs keep. It reads and changes nothing; a link past its days, or spent by a signing since,
 * opens nothing (410).
 */
export default async (req: Request): Promise<Response> => {
  if (req.method !== 'POST') {
    return refuse(405, 'Open the link in the e-mail.', { allow: 'POST' });
  }
  if (!isSameOrigin(req)) return refuse(403, 'Open the link in the e-mail.');
  if (postFormat(req) !== 'json') return refuse(415, 'Open the link in the e-mail.');
  const body = await readBody(req, 'json', 1024);
  if (!body.ok) return refuse(body.problem, 'Open the link in the e-mail.');
  const token = typeof body.value.token === 'string' ? body.value.token : '';
  try {
    const signer = await reSignFor(token);
    if (signer === undefined) return refuse(404, RE_SIGN_UNKNOWN);
    if (signer === 'spent') return refuse(410, RE_SIGN_SPENT);
    if (signer === 'expired') return refuse(410, RE_SIGN_EXPIRED);
    return answer(200, { success: true, ...signer });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      return refuse(503, 'Please fill in the form.', { 'retry-after': '30' });
    }
    throw error;
  }
};
