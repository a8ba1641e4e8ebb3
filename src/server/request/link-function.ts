import { DatabaseUnavailableError } from '../platform/db';
import type { FunctionContext } from './guard';
import { problemPage, type ProblemPage } from './pages';
import { methodNotAllowed } from './responses';

type Handler = (req: Request, context?: FunctionContext) => Promise<Response>;

/** A fault behind a mailed link: an outage (503, try again in 30 s) or anything else (500). */
export interface LinkFault {
  outage: boolean;
  status: 500 | 503;
  headers?: Record<string, string>;
}

/**
 * A function behind a link in a mail (a booking's manage page, the list's confirm and
 * unsubscribe): GET (and HEAD) shows, POST acts, anything else 405; a fault is logged by name
 * only and answered with the page `faultPage` words for it.
 */
export function linkFunction(
  path: string,
  { GET, POST }: { GET: Handler; POST: Handler },
  faultPage: (fault: LinkFault) => ProblemPage,
) {
  return async (req: Request, context?: FunctionContext): Promise<Response> => {
    try {
      if (req.method === 'POST') return await POST(req, context);
      if (req.method === 'GET' || req.method === 'HEAD') return await GET(req, context);
      return methodNotAllowed('GET, HEAD, POST');
    } catch (error) {
      return linkFault(path, error, faultPage);
    }
  };
}

/**
 * The answer to a fault behind a mailed link, logged by name only: an outage (503, try again in
 * 30 s) or anything else (500), in the words `faultPage` gives it.
 */
export function linkFault(
  path: string,
  error: unknown,
  faultPage: (fault: LinkFault) => ProblemPage,
): Response {
  const outage = error instanceof DatabaseUnavailableError;
  console.error(
    `${path} failed (${outage ? 'the database is unavailable' : (error as Error)?.name})`,
  );
  return problemPage(
    faultPage(
      outage ? { outage, status: 503, headers: { 'retry-after': '30' } } : { outage, status: 500 },
    ),
  );
}
