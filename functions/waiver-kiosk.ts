import type { Config } from '@netlify/functions';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { API_SECURITY_HEADERS } from '../src/server/request/responses';
import { cookieIn } from '../src/server/auth/sessions';
import { forgetKioskCookies, KIOSK_MARKER, kioskOf } from '../src/server/waiver/kiosk';

export const config: Config = { path: '/api/waiver/kiosk' };

/**
 * Whether this device is the studio's waiver kiosk, asked by the waiver form once it runs: the
 * readable marker cookie only says it might be. A device whose kiosk was turned off on the desk
 * loses the marker here, and its form is the ordinary one again.
 */
export default async (req: Request): Promise<Response> => {
  const headers = new Headers({
    ...API_SECURITY_HEADERS,
    'cache-control': 'no-store',
    'x-robots-tag': 'noindex, nofollow',
  });
  if (req.method !== 'GET') {
    headers.set('allow', 'GET');
    return Response.json(
      { success: false, error: 'Method not allowed.' },
      { status: 405, headers },
    );
  }
  try {
    const kiosk = (await kioskOf(req)) !== undefined;
    if (!kiosk && cookieIn(req, KIOSK_MARKER)) {
      for (const cookie of forgetKioskCookies(req)) headers.append('set-cookie', cookie);
    }
    return Response.json({ success: true, kiosk }, { headers });
  } catch (error) {
    if (!(error instanceof DatabaseUnavailableError)) throw error;
    headers.set('retry-after', '30');
    return Response.json({ success: false, error: 'Please try again.' }, { status: 503, headers });
  }
};
