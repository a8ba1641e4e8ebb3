import type { Config, Context } from '@netlify/functions';
import { bookingPage, unavailablePage } from '../src/server/booking/pages';
import { PAGES } from '../src/shared/site-paths';
import { afterAnswer } from '../src/server/request/guard';
import { methodNotAllowed } from '../src/server/request/responses';

export const config: Config = { path: '/consultation' };

/**
 * /consultation: the page Astro built, with the slots free right now filled in. A shared cache
 * may keep it for up to a minute; a booking is checked against the database whatever the page
 * showed. If the database cannot be read, the page says so (503) rather than offer stale times.
 */
export default async (req: Request, context?: Context): Promise<Response> => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return methodNotAllowed('GET, HEAD');
  }
  try {
    return await bookingPage(req, {
      later: (work) => afterAnswer(context, work),
    });
  } catch (error) {
    console.error(
      `${PAGES.consultation}: the free times could not be read (${(error as Error)?.name})`,
    );
    return unavailablePage(req);
  }
};
