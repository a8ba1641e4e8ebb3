import type { Config } from '@netlify/functions';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { API_SECURITY_HEADERS } from '../src/server/request/responses';
import { reSignFor } from '../src/server/waiver/re-sign';

export const config: Config = { path: '/api/waiver/re-sign/:token' };

const PRIVATE = {
  ...API_SECURITY_HEADERS,
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'no-referrer',
};

const answer = (status: number, body: object, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { ...PRIVATE, ...headers } });

/**
 * What the link of a re-sign request fills the waiver form with: the participant's name and
 * e-mail address as they last signed (never their health information). The token comes from the
 * link's fragment, which the page sends here; a GET reads and changes nothing.
 */
export default async (req: Request): Promise<Response> => {
  if (req.method !== 'GET') {
    return answer(405, { success: false, error: 'Open the link in the e-mail.' }, { allow: 'GET' });
  }
  const token = decodeURIComponent(new URL(req.url).pathname.split('/').pop() ?? '');
  try {
    const signer = await reSignFor(token);
    if (!signer) {
      return answer(404, {
        success: false,
        error:
          'This link is not one the studio sent, or its request was removed. Please fill in the form.',
      });
    }
    return answer(200, { success: true, ...signer });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      return answer(
        503,
        { success: false, error: 'Please fill in the form.' },
        { 'retry-after': '30' },
      );
    }
    throw error;
  }
};
