import type { Config } from '@netlify/functions';
import { classesPage, classesUnavailable, waitingPage } from '../src/server/classes/pages';
import { methodNotAllowed } from '../src/server/request/responses';

export const config: Config = { path: ['/classes', '/classes/waiting'] };

/**
 * /classes: the page Astro built, with the timetable and the places left right now filled in (a
 * shared cache keeps it up to a minute; a booking is checked against the database whatever the
 * page showed). /classes/waiting: the answer to joining a waitlist without script.
 */
export default async (req: Request): Promise<Response> => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed('GET, HEAD');
  if (new URL(req.url).pathname.replace(/\/$/, '') === '/classes/waiting') return waitingPage(req);
  try {
    return await classesPage(req);
  } catch (error) {
    console.error(`/classes: the timetable could not be read (${(error as Error)?.name})`);
    return classesUnavailable(req);
  }
};
