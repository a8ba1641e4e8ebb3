import type { Config } from '@netlify/functions';
import { feedTokenMatches, subscriptionCalendar } from '../src/server/booking/subscription';
import { DatabaseUnavailableError } from '../src/server/platform/db';
import { siteOrigin } from '../src/server/platform/hosting';
import { API_SECURITY_HEADERS } from '../src/server/request/responses';

export const config: Config = { path: '/api/consultation/feed/:token' };

const PRIVATE = {
  ...API_SECURITY_HEADERS,
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'no-referrer',
};

const text = (status: number, words: string, headers: Record<string, string> = {}) =>
  new Response(words, {
    status,
    headers: { ...PRIVATE, 'content-type': 'text/plain; charset=utf-8', ...headers },
  });

/**
 * The instructor's calendar of consultations, for her calendar app to subscribe to (the secret
 * address is made on the desk). Personal data: never stored by a cache, never indexed.
 */
export default async (req: Request): Promise<Response> => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return text(405, 'Subscribe to this address in a calendar app.', { allow: 'GET, HEAD' });
  }
  const token = decodeURIComponent(new URL(req.url).pathname.split('/').pop() ?? '').replace(
    /\.ics$/i,
    '',
  );
  try {
    if (!(await feedTokenMatches(token))) {
      return text(404, 'No calendar here: the address may have been replaced on the records desk.');
    }
    const calendar = await subscriptionCalendar(siteOrigin());
    return new Response(req.method === 'HEAD' ? null : calendar, {
      headers: {
        ...PRIVATE,
        'content-type': 'text/calendar; charset=utf-8',
        'content-disposition': 'inline; filename="consultations.ics"',
      },
    });
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    console.error(
      `consultation feed: ${outage ? 'the database is unavailable' : (error as Error)?.name}`,
    );
    return text(outage ? 503 : 500, 'The calendar cannot be read just now.', {
      'retry-after': '60',
    });
  }
};
