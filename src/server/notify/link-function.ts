import { DatabaseUnavailableError } from '../platform/db';
import { siteFacts } from '../platform/site-facts';
import type { FunctionContext } from '../request/guard';
import { problemPage } from '../request/pages';

type Handler = (req: Request, context?: FunctionContext) => Promise<Response>;

/**
 * A function behind a link in the list's mail: GET (and HEAD) and POST, anything else 405; an
 * outage a 503 page that says nothing was changed, any other fault a 500 page, logged by name.
 */
export function linkFunction(path: string, { GET, POST }: { GET: Handler; POST: Handler }) {
  return async (req: Request, context?: FunctionContext): Promise<Response> => {
    try {
      if (req.method === 'POST') return await POST(req, context);
      if (req.method === 'GET' || req.method === 'HEAD') return await GET(req, context);
      return new Response('Method Not Allowed', {
        status: 405,
        headers: { allow: 'GET, HEAD, POST' },
      });
    } catch (error) {
      const outage = error instanceof DatabaseUnavailableError;
      console.error(
        `${path} failed (${outage ? 'the database is unavailable' : (error as Error)?.name})`,
      );
      const status = outage ? 503 : 500;
      return problemPage({
        problem: { status, error: '', headers: outage ? { 'retry-after': '30' } : undefined },
        words: {
          title: 'This link cannot be opened just now',
          text: 'Nothing was changed. Please try again in a minute.',
          fallback: `Or write to ${siteFacts().email}`,
        },
        labels: {},
        formPage: { href: '/events', label: 'Return to Events' },
      });
    }
  };
}
