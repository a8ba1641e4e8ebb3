import { refusal, type FormName } from '../../forms/answer';
import { DatabaseUnavailableError } from '../platform/db';
import type { Problem } from './answers';
import { countRequest, type RateLimit } from './rate-limit';

/** The part of Netlify's function context the guard reads (absent when tests call a handler). */
export interface ClientContext {
  ip?: string;
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
  /** How long the body may take to arrive (408 after that). */
  bodyTimeoutMs?: number;
}

export interface Posted {
  body: Record<string, unknown>;
  client: Client;
}

const BODY_TIMEOUT_MS = 10_000;

/**
 * Everything a form's request must pass before its fields are even looked at, cheapest first:
 * POST (405), from the site's own origin (403), a JSON media type in UTF-8 (415), a declared size
 * within the cap (413), within the client's rate limit (429, or 503 when the database is down),
 * an actual size within the cap (413, counted while it streams) arriving in time (408), valid
 * UTF-8 holding well-formed JSON (400) that is an object (400).
 */
export async function guardPost(
  req: Request,
  context: ClientContext | undefined,
  options: GuardOptions,
): Promise<{ problem: Problem } | { posted: Posted; problem?: undefined }> {
  const { form } = options;
  const refuse = (status: number, headers?: Record<string, string>, retryAfter?: number) => ({
    problem: { status, error: refusal(form, status, retryAfter) ?? 'Refused.', headers },
  });
  if (req.method !== 'POST') return refuse(405, { allow: 'POST' });
  if (!isSameOrigin(req)) return refuse(403);
  if (!isJsonRequest(req)) return refuse(415);
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > options.maxBytes) return refuse(413);

  const client = clientOf(req, context);
  try {
    const verdict = await countRequest(form, client.ip, options.rateLimit);
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

  const read = await readCapped(req, options.maxBytes, options.bodyTimeoutMs ?? BODY_TIMEOUT_MS);
  if (typeof read === 'number') return refuse(read);

  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(read));
  } catch {
    return refuse(400);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse(400);
  return { posted: { body: body as Record<string, unknown>, client } };
}

/**
 * The origins the forms accept: the request's own (what a browser sends for a same-origin
 * fetch), plus the site's configured addresses (`SITE_URL`, Netlify's `URL`, `DEPLOY_PRIME_URL`
 * and `DEPLOY_URL`), for when a proxy in front changes the host the function sees.
 */
export function allowedOrigins(req: Request): Set<string> {
  const origins = new Set([new URL(req.url).origin]);
  const { SITE_URL, URL: netlifyUrl, DEPLOY_PRIME_URL, DEPLOY_URL } = process.env;
  for (const address of [SITE_URL, netlifyUrl, DEPLOY_PRIME_URL, DEPLOY_URL]) {
    if (!address) continue;
    try {
      origins.add(new URL(address).origin);
    } catch {
      // A malformed setting allows nothing extra.
    }
  }
  return origins;
}

/**
 * Whether a POST comes from a page of this site. Browsers send `Origin` with every POST they
 * make; failing that, `Sec-Fetch-Site: same-origin` vouches for it. A POST with neither comes
 * from no browser we serve (curl, a script) and is refused: such a client can claim any origin
 * anyway, so it gains nothing by the refusal but is reminded to say where it comes from.
 */
export function isSameOrigin(req: Request): boolean {
  const origin = req.headers.get('origin');
  if (origin !== null) return origin !== 'null' && allowedOrigins(req).has(origin);
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

/** `application/json` or any `application/…+json`, in UTF-8 (JSON's only encoding). */
export function isJsonRequest(req: Request): boolean {
  const [type = '', ...parameters] = (req.headers.get('content-type') ?? '').split(';');
  const media = type.trim().toLowerCase();
  if (media !== 'application/json' && !/^application\/[\w.!#$&^-]+\+json$/.test(media)) {
    return false;
  }
  const charset = parameters
    .map((parameter) => parameter.split('='))
    .find(([name]) => name?.trim().toLowerCase() === 'charset')?.[1];
  return !charset || /^"?utf-8"?$/i.test(charset.trim());
}

/**
 * Reads the body, counting bytes as they stream: gives up with 413 as soon as more than `max`
 * arrive, with 408 when the whole body takes longer than `timeoutMs`, 400 when it breaks off.
 */
export async function readCapped(
  req: Request,
  max: number,
  timeoutMs: number,
): Promise<Uint8Array | 408 | 413 | 400> {
  if (!req.body) return new Uint8Array();
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
        return 408;
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        return 413;
      }
      chunks.push(next.value);
    }
  } catch {
    return 400;
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks);
}
