/**
 * The records desk's HTTP API is one Hono app (`./api.ts`, one app per screen in ./apps/, served
 * by functions/desk.ts). What every desk request goes through is here:
 *
 * - a path is matched as Netlify matches a function's path (any case, a trailing slash ignored);
 *   none: 404; a method the path does not take (HEAD too): 405 with `Allow` (Hono's
 *   `methodNotAllowed`, in the desk's words);
 * - each route begins with its guard, `signedIn` or `open(...)`: same origin for a POST (403); not
 *   a waiver kiosk (403, reason 'kiosk': a kiosk is a device nobody of the studio is signed in on,
 *   and a session it still presents is ended), but for an open route that says `onKiosk`; a live
 *   session unless the route is open (401, a dead cookie deleted); a small JSON object for a POST
 *   (415, 413, 408, 400);
 * - then its validator (`body`, `query`: 422 naming each field), then its handler;
 * - every answer `Cache-Control: no-store`, `X-Robots-Tag: noindex` and the security headers
 *   (Hono's `secureHeaders`, set to the site's own); 503 when the database is down, 500 (logged by
 *   error name only) for the rest.
 */
import { zValidator } from '@hono/zod-validator';
import { Hono, type Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { routePath } from 'hono/route';
import { secureHeaders } from 'hono/secure-headers';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { describeProblems, fieldErrors, type FieldErrors } from '../../shared/fields';
import { CHECK_FIELDS } from '../../shared/form-answer';
import {
  DESK_API,
  FRESH_SIGN_IN_NEEDED,
  KIOSK_DEVICE,
  type RefusalReason,
} from '../../shared/desk-api';
import {
  endSessionOfToken,
  findSession,
  sessionToken,
  setSessionCookie,
  type Staff,
} from '../auth/sessions';
import { carriesKioskToken, kioskOf } from '../waiver/kiosk';
import { DatabaseUnavailableError } from '../platform/db';
import {
  clientOf,
  isSameOrigin,
  postFormat,
  readBody,
  type Client,
  type FunctionContext,
} from '../request/guard';

/** What the platform hands the router: Netlify's context (the client's address, `waitUntil`). */
export interface DeskEnv {
  Bindings: { context?: FunctionContext };
}

/** What a route's guard gives its handler: the staff member (open routes: if signed in). */
interface Guarded<S extends Staff | undefined> {
  Variables: { staff: S; kiosk: string | undefined; client: Client };
}

/**
 * The security headers every function of the site sends (API_SECURITY_HEADERS,
 * ../request/responses.ts), set by Hono's secureHeaders: exactly those, each spelled out, and the
 * others it would add turned off (tests/functions/records-security.test.ts holds the two equal).
 */
const securityHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
  strictTransportSecurity: 'max-age=63072000; includeSubDomains',
  xContentTypeOptions: 'nosniff',
  xFrameOptions: 'DENY',
  referrerPolicy: 'strict-origin-when-cross-origin',
  permissionsPolicy: { camera: [], microphone: [], geolocation: [], payment: [], usb: [] },
  crossOriginResourcePolicy: 'same-origin',
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/** No desk answer belongs in a search index or a cache. */
const noStore = createMiddleware(async (c, next) => {
  await next();
  c.res.headers.set('cache-control', 'no-store');
  c.res.headers.set('x-robots-tag', 'noindex, nofollow');
});

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

/** `{ success: true, ...body }`. */
export function answer<T extends object>(c: Context, body: T) {
  return c.json({ success: true as const, ...body }, 200);
}

/** `{ success: false, error }` with `status`; the words default to the status's. */
export function refuse<S extends ContentfulStatusCode>(
  c: Context,
  status: S,
  error = WORDS[status] ?? 'Refused.',
  more: { fieldErrors?: FieldErrors; reason?: RefusalReason } = {},
) {
  return c.json({ success: false as const, error, ...more }, status);
}

/** A 422 that names each field that needs fixing. */
export function refuseFields(c: Context, errors: FieldErrors) {
  return refuse(c, 422, describeProblems(errors) || CHECK_FIELDS, { fieldErrors: errors });
}

/**
 * 403 for an erasure or an export with health information asked with a sign-in older than
 * FRESH_SIGN_IN_MINUTES: the desk asks her for a fresh sign-in link, then she tries again.
 */
export function freshSignInNeeded(c: Context) {
  return refuse(c, 403, FRESH_SIGN_IN_NEEDED, { reason: 'fresh-sign-in' });
}

/** A file to save (a PDF, a CSV): never cached, never shown in place. */
export function download(content: Buffer | string, type: string, filename: string): Response {
  const safe = filename.replace(/[^\w.-]+/g, '-');
  return new Response(typeof content === 'string' ? content : new Uint8Array(content), {
    headers: { 'content-type': type, 'content-disposition': `attachment; filename="${safe}"` },
  });
}

interface Access {
  open: boolean;
  onKiosk: boolean;
  /** Largest POST body accepted, in bytes. */
  maxBytes: number;
}

/** Every guard made, with what it lets through: a route without one does not load. */
const GUARDS = new WeakMap<object, Access>();

/**
 * The guard a route begins with. Two of its steps are the desk's own, not Hono's middleware, for
 * what that does otherwise:
 * - same origin: `hono/csrf` checks only the content types a plain form can send, and lets any
 *   `application/json` POST through, whatever its Origin (and a foreign Origin through with
 *   `Sec-Fetch-Site: same-origin`); the desk takes JSON alone, and refuses every POST that does
 *   not come from the site's own pages (`isSameOrigin`, as every form does);
 * - the body: `hono/body-limit` reads a body of no declared length for as long as it keeps coming;
 *   `readBody` (the forms' reader too) counts it against the cap and the clock at once (408), and
 *   reads it as UTF-8 JSON holding an object (400), in one pass.
 */
function guard<S extends Staff | undefined>(access: Access) {
  const middleware = createMiddleware<DeskEnv & Guarded<S>>(async (c, next) => {
    const req = c.req.raw;
    const post = req.method === 'POST';
    if (post && !isSameOrigin(req)) return refuse(c, 403);
    const token = sessionToken(req);
    const kiosk = carriesKioskToken(req) ? await kioskOf(req) : undefined;
    if (kiosk && !access.onKiosk) {
      await endSessionOfToken(token);
      if (token) c.header('set-cookie', setSessionCookie(req));
      return refuse(c, 403, KIOSK_DEVICE, { reason: 'kiosk' });
    }
    const staff = kiosk ? undefined : await findSession(token);
    if (!staff && !access.open) {
      // A cookie that opens nothing any more (expired, revoked, forged) is deleted.
      if (token) c.header('set-cookie', setSessionCookie(req));
      return refuse(c, 401);
    }
    if (post) {
      if (postFormat(req) !== 'json') return refuse(c, 415);
      if (Number(req.headers.get('content-length') ?? 0) > access.maxBytes) return refuse(c, 413);
      // Read once, capped and timed; the route's validator reads it from Hono's body cache
      // (`c.req.json()` answers from it, as Hono's own validator caches a form).
      const read = await readBody(req, 'json', access.maxBytes);
      if (!read.ok) return refuse(c, read.problem);
      c.req.bodyCache.json = Promise.resolve(read.value);
    }
    c.set('staff', staff as S);
    c.set('kiosk', kiosk);
    c.set('client', clientOf(req, c.env?.context));
    await next();
  });
  GUARDS.set(middleware, access);
  return middleware;
}

const SMALL = 4 * 1024;

/** A route for a signed-in member of staff (POST bodies up to `maxBytes`, 4 KB unless said). */
export const signedIn = ({ maxBytes = SMALL }: { maxBytes?: number } = {}) =>
  guard<Staff>({ open: false, onKiosk: false, maxBytes });

/**
 * A route open to anyone: its handler gets the staff member if signed in. `onKiosk`: open on a
 * waiver kiosk too (following a sign-in link, which turns the kiosk off).
 */
export const open = ({
  onKiosk = false,
  maxBytes = SMALL,
}: {
  onKiosk?: boolean;
  maxBytes?: number;
}) => guard<Staff | undefined>({ open: true, onKiosk, maxBytes });

/** The JSON body checked by `schema`: a 422 naming each field otherwise. */
export const body = <S extends z.ZodType>(schema: S) =>
  zValidator('json', schema, (result, c) => {
    if (!result.success) return refuseFields(c, fieldErrors(result.error));
  });

/** The query checked by `schema`: a 422 naming each field otherwise. */
export const query = <S extends z.ZodType>(schema: S) =>
  zValidator('query', schema, (result, c) => {
    if (!result.success) return refuseFields(c, fieldErrors(result.error));
  });

/** One method at one path, as the tests list them. */
export interface DeskRoute {
  method: 'GET' | 'POST';
  path: string;
  open: boolean;
}

/** The routes of `app`; throws for a route that does not begin with a guard. */
function routesOf(app: Hono<DeskEnv>): DeskRoute[] {
  const routes = new Map<string, DeskRoute & { guarded: boolean }>();
  for (const { method, path, handler } of app.routes) {
    if (method !== 'GET' && method !== 'POST') continue;
    const key = `${method} ${path}`;
    const route = routes.get(key) ?? { method, path, open: false, guarded: false };
    const access = GUARDS.get(handler);
    if (access) Object.assign(route, { open: access.open, guarded: true });
    routes.set(key, route);
  }
  return [...routes.values()].map(({ method, path, open, guarded }) => {
    if (!guarded) throw new Error(`${method} ${path} has no guard: begin it with signedIn or open`);
    return { method, path, open };
  });
}

/**
 * A path as Netlify matches a function's: any case, a trailing slash ignored. (Hono's own ways
 * do less: `strict: false` ignores the slash but sets aside a `getPath` of one's own, and so the
 * case; `trimTrailingSlash` answers a GET with a 301 to the path without it, and a POST with a
 * 404.)
 */
function pathOf(req: Request): string {
  const { pathname } = new URL(req.url);
  return (pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname).toLowerCase();
}

/**
 * The desk's Netlify function: `api` (its routes under DESK_API) with the answers every request
 * gets. Its `routes` list every method at every path, and whether it is open.
 */
export function deskFunction(api: Hono<DeskEnv>) {
  const app = new Hono<DeskEnv>({ getPath: pathOf });
  // First, so they see every answer: the routes', the 404s', the 405s' and the errors'.
  app.use(securityHeaders, noStore);
  app.use(
    methodNotAllowed({
      app,
      // Hono counts HEAD in wherever GET is (it answers HEAD with a GET's handler); the desk
      // takes no HEAD (below).
      onMethodNotAllowed: (c, methods) => {
        c.header('allow', methods.filter((method) => method !== 'HEAD').join(', '));
        return refuse(c, 405);
      },
    }),
  );
  app.route(DESK_API, api);
  const routes = routesOf(app);

  app.notFound((c) => refuse(c, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return refuse(c, 400);
    const where = `${c.req.method} ${routePath(c, -1)}`;
    if (error instanceof DatabaseUnavailableError) {
      console.error(`records desk: ${where}: the database is unavailable`);
      c.header('retry-after', '30');
      return refuse(c, 503);
    }
    // The error's name and SQLSTATE only: a message may quote a value, and values here are
    // people's records.
    const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
    console.error(
      `records desk: ${where} failed (${String(name)}${typeof code === 'string' ? ` ${code}` : ''})`,
    );
    return refuse(c, 500);
  });

  // Hono answers HEAD with a GET's handler: the desk never did. A HEAD is asked as OPTIONS, which
  // no route takes, so it gets what any method the desk does not make gets (405 with the methods
  // the path takes, or 404), without the body, as a HEAD's answer.
  const handler = async (req: Request, context?: FunctionContext) => {
    if (req.method !== 'HEAD') return app.fetch(req, { context });
    const refused = await app.fetch(new Request(req, { method: 'OPTIONS' }), { context });
    return new Response(null, refused);
  };
  return Object.assign(handler, { routes });
}
