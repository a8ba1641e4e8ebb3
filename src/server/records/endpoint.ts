/**
 * The one way a records desk request travels through a function, as `formFunction` is for the
 * forms: route (404, 405) → same origin for a POST (403) → not a waiver kiosk (403: a kiosk is a
 * device nobody of the studio is signed in on; a session it still presents is ended), but for
 * following a sign-in link there, which asks before it turns the kiosk off → a live session unless the route is open (401) → a small JSON object for a POST (415, 413, 408, 400) → the route's handler → its
 * answer, `Cache-Control: no-store`, `X-Robots-Tag: noindex` and the security headers on
 * everything, 503 when the database is down, 500 (logged by error name only) for the rest.
 *
 * Each path is written once, in the function's `config.path` (which Netlify reads from the source
 * to route requests to the function, so it stays a literal there): the function hands its config
 * to `deskFunction` with one entry per path, in the same order, saying what each method does.
 * Paths are matched as Netlify matches them (URLPattern; any case, a trailing slash ignored).
 */
import type { z } from 'zod';
import { describeProblems, fieldErrors, type FieldErrors } from '../../shared/fields';
import { failed, ok, type Result } from '../../shared/result';
import { CHECK_FIELDS } from '../../shared/form-answer';
import { FRESH_SIGN_IN_NEEDED, KIOSK_DEVICE, type DeskAnswer } from '../../shared/desk-api';
import {
  endSessionOfToken,
  findSession,
  sessionToken,
  setSessionCookie,
  type Staff,
} from '../auth/sessions';
import { carriesKioskToken, kioskOf } from '../waiver/kiosk';
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
  /** The waiver kiosk this device is (its token's hash), if it is one: only open routes see it. */
  kiosk: string | undefined;
}

type Method = 'GET' | 'POST';
type Handle<S> = (call: DeskCall<S>) => Promise<Response>;

/** What a method does at a path: a handler for a signed-in member of staff, or with options. */
export type DeskHandler =
  | Handle<Staff>
  | {
      /** Open to anyone: the handler gets the staff member if signed in, else `undefined`. */
      open: true;
      /** Open on a waiver kiosk too (following a sign-in link, which turns the kiosk off). */
      onKiosk?: true;
      /** Largest POST body accepted, in bytes (4 KB unless said). */
      maxBytes?: number;
      handle: Handle<Staff | undefined>;
    }
  | { open?: false; maxBytes?: number; handle: Handle<Staff> };

/** The methods one path of `config.path` answers. */
export type DeskPath = Partial<Record<Method, DeskHandler>>;

/** One method at one path, as the tests list them. */
export interface DeskRoute {
  method: Method;
  path: string;
  open: boolean;
}

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

/**
 * 403 for an erasure or an export with health information asked with a sign-in older than
 * FRESH_SIGN_IN_MINUTES: the desk asks her for a fresh sign-in link, then she tries again.
 */
export function freshSignInNeeded(): Response {
  const body: DeskAnswer = { success: false, error: FRESH_SIGN_IN_NEEDED, reason: 'fresh-sign-in' };
  return json(body, 403, DESK_HEADERS);
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

/**
 * The `:name` parts of `pathname` if it matches `path` as Netlify matches a function's path (any
 * case, a trailing slash ignored), else `undefined`.
 */
export function paramsOf(path: string, pathname: string): Record<string, string> | undefined {
  const trimmed = pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
  const groups = new URLPattern({ pathname: path }, { ignoreCase: true }).exec({
    pathname: trimmed,
  })?.pathname.groups;
  if (!groups) return undefined;
  try {
    return Object.fromEntries(
      Object.entries(groups).map(([name, value]) => [name, decodeURIComponent(value ?? '')]),
    );
  } catch {
    return undefined;
  }
}

/**
 * The function of the desk's paths: `config` is the function's own (its `path` routes requests to
 * it), `paths` says what each of those paths does, one entry per path in the order of `config.path`.
 */
export function deskFunction(config: { path?: string | string[] }, paths: DeskPath[]) {
  const patterns = [config.path ?? []].flat();
  if (patterns.length !== paths.length) {
    throw new Error(`config.path has ${patterns.length} paths but ${paths.length} are handled`);
  }
  const routes: DeskRoute[] = patterns.flatMap((path, i) =>
    Object.entries(paths[i]).map(([method, handler]) => ({
      method: method as Method,
      path,
      open: typeof handler === 'object' && handler.open === true,
    })),
  );

  const handler = async (req: Request, context?: FunctionContext): Promise<Response> => {
    const url = new URL(req.url);
    const index = patterns.findIndex((path) => paramsOf(path, url.pathname));
    if (index < 0) return deskRefusal(404);
    const path = patterns[index];
    const params = paramsOf(path, url.pathname)!;
    const method = req.method as Method;
    const found = Object.hasOwn(paths[index], method) ? paths[index][method] : undefined;
    if (!found) return deskRefusal(405, undefined, { allow: Object.keys(paths[index]).join(', ') });
    const route = typeof found === 'function' ? { handle: found } : found;
    const post = method === 'POST';
    if (post && !isSameOrigin(req)) return deskRefusal(403);

    try {
      const token = sessionToken(req);
      const kiosk = carriesKioskToken(req) ? await kioskOf(req) : undefined;
      if (kiosk && !(route.open && route.onKiosk)) {
        await endSessionOfToken(token);
        const body: DeskAnswer = { success: false, error: KIOSK_DEVICE, reason: 'kiosk' };
        const clear: Record<string, string> = token ? { 'set-cookie': setSessionCookie(req) } : {};
        return json(body, 403, { ...DESK_HEADERS, ...clear });
      }
      const staff = kiosk ? undefined : await findSession(token);
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
      const call = { req, url, params, body, client: clientOf(req, context), context, kiosk };
      return route.open
        ? await route.handle({ ...call, staff })
        : await route.handle({ ...call, staff: staff! });
    } catch (error) {
      if (error instanceof DatabaseUnavailableError) {
        console.error(`records desk: ${method} ${path}: the database is unavailable`);
        return deskRefusal(503, undefined, { 'retry-after': '30' });
      }
      // The error's name and SQLSTATE only: a message may quote a value, and values here are
      // people's records.
      const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
      console.error(
        `records desk: ${method} ${path} failed (${String(name)}${typeof code === 'string' ? ` ${code}` : ''})`,
      );
      return deskRefusal(500);
    }
  };
  return Object.assign(handler, { routes });
}
