/**
 * The one way a records desk request travels through a function, as `formFunction` is for the
 * forms: route (404, 405) → same origin for a POST (403) → a live session unless the route is
 * open (401) → a small JSON object for a POST (415, 413, 408, 400) → the route's handler → its
 * answer, `Cache-Control: no-store`, `X-Robots-Tag: noindex` and the security headers on
 * everything, 503 when the database is down, 500 (logged by error name only) for the rest.
 *
 * A function lists its routes; each route's path must also be in the function's `config.path`
 * (tests/functions/records-security.test.ts checks both lists agree).
 */
import type { z } from 'zod';
import { describeProblems, fieldErrors, type FieldErrors } from '../../shared/fields';
import { failed, ok, type Result } from '../../shared/result';
import { CHECK_FIELDS } from '../../shared/form-answer';
import { findSession, sessionToken, setSessionCookie, type Staff } from '../auth/sessions';
import { DatabaseUnavailableError } from '../platform/db';
import { API_SECURITY_HEADERS, json, refused, type Problem } from '../request/responses';
import {
  clientOf,
  postFormat,
  isSameOrigin,
  readBody,
  type Client,
  type FunctionContext,
} from '../request/guard';

/** No desk answer belongs in a search index or a cache. */
export const DESK_HEADERS = { 'x-robots-tag': 'noindex, nofollow' } as const;

export interface DeskCall<S> {
  req: Request;
  url: URL;
  /** The `:name` parts of the route's path. */
  params: Record<string, string>;
  /** A POST's JSON object (`{}` for a GET). */
  body: Record<string, unknown>;
  staff: S;
  client: Client;
  context: FunctionContext | undefined;
}

type Method = 'GET' | 'POST';
interface RouteBase {
  method: Method;
  /** e.g. `/api/records/waivers/:id` */
  path: string;
  /** Largest POST body accepted, in bytes (4 KB unless said). */
  maxBytes?: number;
}

export type DeskRoute =
  | (RouteBase & { open: true; handle(call: DeskCall<Staff | undefined>): Promise<Response> })
  | (RouteBase & { open?: false; handle(call: DeskCall<Staff>): Promise<Response> });

const WORDS: Record<number, string> = {
  400: 'The desk could not read that request. Please reload the page and try again.',
  401: 'Please sign in to the records desk.',
  403: 'That request did not come from the records desk. Please reload the page and try again.',
  404: 'There is no such record here (it may have been erased).',
  405: 'That request is not one the records desk makes.',
  408: 'The request took too long to arrive. Please try again.',
  413: 'That request is too large for the records desk.',
  415: 'That request is not one the records desk makes. Please reload the page and try again.',
  500: 'Something went wrong on the server. Please try again.',
  503: 'The records are unavailable just now. Please try again in a minute.',
};

/** `{ success: true, ...body }` with the desk's headers. */
export function deskAnswer(body: object = {}, headers: Record<string, string> = {}): Response {
  return json({ success: true, ...body }, 200, { ...DESK_HEADERS, ...headers });
}

/** `{ success: false, error }` with the desk's headers; the words default to the status's. */
export function deskRefusal(
  status: number,
  error = WORDS[status] ?? 'Refused.',
  headers: Record<string, string> = {},
): Response {
  return deskRefused({ status, error, headers });
}

/** A problem (`{ success: false, error, fieldErrors? }`) answered with the desk's headers. */
export function deskRefused(problem: Problem): Response {
  return refused({ ...problem, headers: { ...DESK_HEADERS, ...problem.headers } });
}

/** The words of a 422 that names each field that needs fixing. */
export function fieldsProblem(errors: FieldErrors): Problem {
  return { status: 422, error: describeProblems(errors) || CHECK_FIELDS, fieldErrors: errors };
}

/** A file to save (a PDF, a CSV): never cached, never shown in place. */
export function download(content: Buffer | string, type: string, filename: string): Response {
  const safe = filename.replace(/[^\w.-]+/g, '-');
  return new Response(typeof content === 'string' ? content : new Uint8Array(content), {
    headers: {
      ...API_SECURITY_HEADERS,
      ...DESK_HEADERS,
      'cache-control': 'no-store',
      'content-type': type,
      'content-disposition': `attachment; filename="${safe}"`,
    },
  });
}

/** The body's fields checked by `schema`: the data, or the 422 problem naming each field. */
export function checked<S extends z.ZodType>(
  schema: S,
  body: unknown,
): Result<z.output<S>, Problem> {
  const parsed = schema.safeParse(body);
  return parsed.success ? ok(parsed.data) : failed(fieldsProblem(fieldErrors(parsed.error)));
}

/** The params of `pathname` if it matches `pattern` (`/a/:id/b`), else `undefined`. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = (pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname).split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  try {
    for (const [i, part] of want.entries()) {
      if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(got[i]);
      else if (part !== got[i]) return undefined;
    }
  } catch {
    return undefined;
  }
  return params;
}

export function deskFunction(routes: DeskRoute[]) {
  const handler = async (req: Request, context?: FunctionContext): Promise<Response> => {
    const url = new URL(req.url);
    const matching = routes.flatMap((route) => {
      const params = matchPath(route.path, url.pathname);
      return params ? [{ route, params }] : [];
    });
    if (matching.length === 0) return deskRefusal(404);
    const found = matching.find(({ route }) => route.method === req.method);
    if (!found) {
      const allow = [...new Set(matching.map(({ route }) => route.method))].join(', ');
      return deskRefusal(405, undefined, { allow });
    }
    const { route, params } = found;
    const post = route.method === 'POST';
    if (post && !isSameOrigin(req)) return deskRefusal(403);

    try {
      const token = sessionToken(req);
      const staff = await findSession(token);
      if (!staff && !route.open) {
        // A cookie that opens nothing any more (expired, revoked, forged) is deleted.
        const clear: Record<string, string> = token ? { 'set-cookie': setSessionCookie(req) } : {};
        return deskRefusal(401, undefined, clear);
      }
      let body: Record<string, unknown> = {};
      if (post) {
        const max = route.maxBytes ?? 4 * 1024;
        if (postFormat(req) !== 'json') return deskRefusal(415);
        if (Number(req.headers.get('content-length') ?? 0) > max) return deskRefusal(413);
        const read = await readBody(req, 'json', max);
        if (!read.ok) return deskRefusal(read.problem);
        body = read.value;
      }
      const call = { req, url, params, body, client: clientOf(req, context), context };
      return route.open
        ? await route.handle({ ...call, staff })
        : await route.handle({ ...call, staff: staff! });
    } catch (error) {
      if (error instanceof DatabaseUnavailableError) {
        console.error(`records desk: ${route.method} ${route.path}: the database is unavailable`);
        return deskRefusal(503, undefined, { 'retry-after': '30' });
      }
      // The error's name and SQLSTATE only: a message may quote a value, and values here are
      // people's records.
      const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
      console.error(
        `records desk: ${route.method} ${route.path} failed (${String(name)}${typeof code === 'string' ? ` ${code}` : ''})`,
      );
      return deskRefusal(500);
    }
  };
  return Object.assign(handler, { routes });
}
