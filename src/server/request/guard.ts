import { TIMER_FIELD } from '../../shared/anti-spam';
import { refusal, type FormName } from '../../shared/form-answer';
import { DatabaseUnavailableError } from '../platform/db';
import { acceptedOrigins } from '../platform/hosting';
import { failed, ok, type Result } from '../../shared/result';
import type { Problem } from './responses';
import type { RateLimit } from '../platform/settings';
import { countClient } from './rate-limit';

/** The part of Netlify's function context the guard reads (absent when tests call a handler). */
export interface ClientContext {
  ip?: string;
}

/** The part of Netlify's context the form and desk functions use (tests may pass less, or nothing). */
export interface FunctionContext extends ClientContext {
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** Work to finish after the answer where the platform allows it, else before it. */
export async function afterAnswer(context: FunctionContext | undefined, work: Promise<unknown>) {
  if (context?.waitUntil) context.waitUntil(work);
  else await work;
}

/** Who sent a request, as the platform saw it: the one address the rate limit and records use. */
export interface Client {
  ip: string;
  userAgent: string | null;
}

export interface GuardOptions {
  /** Names the rate-limit counter and chooses the words of a refusal. */
  form: FormName;
  /** Largest body accepted, in bytes; a larger one gets 413 before any parsing. */
  maxBytes: number;
  rateLimit: RateLimit;
  /** A device the rate limit does not count (the studio's waiver kiosk). */
  exempt?: (req: Request) => Promise<boolean>;
}

/**
 * How the form was sent: `json` by the form's script, `form` by the browser itself (a plain HTML
 * form post, `application/x-www-form-urlencoded`), which wants pages back, not JSON.
 */
export type PostFormat = 'json' | 'form';

export interface Posted {
  body: Record<string, unknown>;
  client: Client;
  format: PostFormat;
}

export const BODY_TIMEOUT_MS = 10_000;

/**
 * Everything a form's request must pass before its fields are even looked at, cheapest first:
 * POST (405), from the site's own origin (403), JSON or a plain form post, in UTF-8 (415), a
 * declared size within the cap (413), within the client's rate limit (429, or 503 when the
 * database is down), an actual size within the cap (413, counted while it streams) arriving in
 * time (408), valid UTF-8 (400) holding well-formed JSON that is an object (400), or form fields.
 * (The caller answers a refusal in kind: as JSON, or as a page to a plain form post.)
 */
export async function guardPost(
  req: Request,
  context: ClientContext | undefined,
  options: GuardOptions,
): Promise<Result<Posted, Problem>> {
  const { form } = options;
  const format = postFormat(req);
  const refuse = (status: number, headers?: Record<string, string>, retryAfter?: number) =>
    failed({ status, error: refusal(form, status, retryAfter) ?? 'Refused.', headers });
  if (req.method !== 'POST') return refuse(405, { allow: 'POST' });
  if (!isSameOrigin(req)) return refuse(403);
  if (!format) return refuse(415);
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > options.maxBytes) return refuse(413);

  const client = clientOf(req, context);
  try {
    const verdict = (await options.exempt?.(req))
      ? { allowed: true as const, retryAfterSeconds: 0 }
      : await countClient(form, client.ip, options.rateLimit);
    if (!verdict.allowed) {
      await req.body?.cancel().catch(() => undefined);
      const wait = verdict.retryAfterSeconds;
      return refuse(429, { 'retry-after': String(wait) }, wait);
    }
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      console.error(`${form}: the database is unavailable; nothing stored or sent`);
      return refuse(503, { 'retry-after': '30' });
    }
    // A broken counter must not close the form: let the request through, and say so.
    console.error(`${form}: the rate limit could not be checked`, (error as Error)?.name);
  }

  const body = await readBody(req, format, options.maxBytes);
  if (!body.ok) return refuse(body.problem);
  return ok({ body: body.value, client, format });
}

/** Why a body was not read, as its status: 400 unreadable, 408 too slow, 413 too large. */
export type BodyProblem = 400 | 408 | 413;

/**
 * A posted body, read within `max` bytes and BODY_TIMEOUT_MS: valid UTF-8 holding a JSON object,
 * or form fields. Else the status to refuse it with: 413, 408, or 400.
 */
export async function readBody(
  req: Request,
  format: PostFormat,
  max: number,
): Promise<Result<Record<string, unknown>, BodyProblem>> {
  const read = await readCapped(req, max, BODY_TIMEOUT_MS);
  if (!read.ok) return read;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.value);
  } catch {
    return failed(400);
  }
  const body = format === 'json' ? parseJson(text) : parseForm(text);
  return body ? ok(body) : failed(400);
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      return body as Record<string, unknown>;
    }
  } catch {
    // Not JSON: refused below.
  }
  return undefined;
}

/**
 * A plain form post's fields, each once (the first value of a repeated name). Its time trap
 * arrives as text and is read as the number a script would have sent.
 */
function parseForm(text: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (!(name in body)) body[name] = value;
  }
  const elapsed = body[TIMER_FIELD];
  if (typeof elapsed === 'string' && /^\d{1,12}$/.test(elapsed))
    body[TIMER_FIELD] = Number(elapsed);
  else delete body[TIMER_FIELD];
  return body;
}

/**
 * Whether a POST comes from a page of this site: its `Origin` is one of the site's configured
 * addresses (`acceptedOrigins()`), never merely the host the request itself names, which the
 * client writes. Browsers send `Origin` with every POST they make; failing that, `Sec-Fetch-Site: same-origin` vouches for it. A POST with neither comes
 * from no browser we serve (curl, a script) and is refused: such a client can claim any origin
 * anyway, so it gains nothing by the refusal but is reminded to say where it comes from.
 */
export function isSameOrigin(req: Request): boolean {
  const origin = req.headers.get('origin');
  if (origin !== null) return origin !== 'null' && acceptedOrigins().has(origin);
  return req.headers.get('sec-fetch-site') === 'same-origin';
}

/**
 * The client as the platform saw it: Netlify's `context.ip` (which `npm start` fills in from the
 * socket too), else Netlify's own header. Never `X-Forwarded-For` as the client sent it: anyone
 * can write one, and the rate limit and the waiver's audit trail must not believe it.
 */
export function clientOf(req: Request, context: ClientContext | undefined): Client {
  const ip = context?.ip || req.headers.get('x-nf-client-connection-ip');
  return { ip: ip?.trim() || 'unknown', userAgent: req.headers.get('user-agent') };
}

/**
 * How the body is sent, from its media type: `json` for `application/json` or any
 * `application/…+json`, `form` for a plain HTML form post; `undefined` for anything else, or for
 * a character set other than UTF-8 (JSON's only encoding, and the one the site's pages use).
 */
export function postFormat(req: Request): PostFormat | undefined {
  const [type = '', ...parameters] = (req.headers.get('content-type') ?? '').split(';');
  const media = type.trim().toLowerCase();
  const charset = parameters
    .map((parameter) => parameter.split('='))
    .find(([name]) => name?.trim().toLowerCase() === 'charset')?.[1];
  if (charset && !/^"?utf-8"?$/i.test(charset.trim())) return undefined;
  if (media === 'application/json' || /^application\/[\w.!#$&^-]+\+json$/.test(media)) {
    return 'json';
  }
  return media === 'application/x-www-form-urlencoded' ? 'form' : undefined;
}

/**
 * Reads the body, counting bytes as they stream: gives up with 413 as soon as more than `max`
 * arrive, with 408 when the whole body takes longer than `timeoutMs`, 400 when it breaks off.
 */
export async function readCapped(
  req: Request,
  max: number,
  timeoutMs: number,
): Promise<Result<Uint8Array, BodyProblem>> {
  if (!req.body) return ok(new Uint8Array());
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') {
        await reader.cancel().catch(() => undefined);
        return failed(408);
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        return failed(413);
      }
      chunks.push(next.value);
    }
  } catch {
    return failed(400);
  } finally {
    clearTimeout(timer);
  }
  return ok(Buffer.concat(chunks));
}
