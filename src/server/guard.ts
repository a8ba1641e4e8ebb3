import { DatabaseUnavailableError } from './db';
import { isJsonRequest } from './http';
import { waitInWords } from '../lib/anti-spam';
import { countRequest, type RateLimit } from './rate-limit';

/** The part of Netlify's function context the guard reads (absent when tests call a handler). */
export interface ClientContext {
  ip?: string;
}

export interface GuardOptions {
  /** Names the rate-limit counter, e.g. 'contact'. */
  bucket: string;
  /** Largest body accepted, in bytes; a larger one gets 413 before any parsing. */
  maxBytes: number;
  rateLimit: RateLimit;
  /** What the visitor sends, for the 429 text: 'messages', 'waivers'. */
  noun: string;
  /** The 413 text: what the visitor can do about it. */
  tooLarge: string;
  /** The 503 text when the database cannot be reached. */
  unavailable: string;
  /** The form's error answer: `{ ok: false, error }` or `{ success: false, error }`. */
  reject(status: number, error: string, headers?: Record<string, string>): Response;
}

export type Guarded =
  | { response: Response }
  | { response?: undefined; body: Record<string, unknown>; clientIp: string };

/**
 * Everything a form's request must pass before its fields are even looked at, cheapest first:
 * POST (405), from the site's own origin (403), JSON (415), a declared size within the cap (413),
 * within the client's rate limit (429), an actual size within the cap (413, while streaming),
 * then well-formed JSON (400) holding an object (400). Returns the parsed object or the answer.
 */
export async function guardPost(
  req: Request,
  context: ClientContext | undefined,
  options: GuardOptions,
): Promise<Guarded> {
  const { reject } = options;
  if (req.method !== 'POST') {
    return { response: reject(405, 'Send the form with POST.', { allow: 'POST' }) };
  }
  if (!isSameOrigin(req)) {
    return {
      response: reject(403, 'This form only accepts submissions from the studio website.'),
    };
  }
  if (!isJsonRequest(req)) return { response: reject(415, 'Send the form as JSON.') };
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > options.maxBytes) return { response: reject(413, options.tooLarge) };

  const clientIp = clientIpOf(req, context);
  try {
    const verdict = await countRequest(options.bucket, clientIp, options.rateLimit);
    if (!verdict.allowed) {
      await req.body?.cancel().catch(() => undefined);
      const wait = waitInWords(verdict.retryAfterSeconds);
      return {
        response: reject(
          429,
          `Too many ${options.noun} from your connection. Please try again in ${wait}.`,
          { 'retry-after': String(verdict.retryAfterSeconds) },
        ),
      };
    }
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      console.error(`${options.bucket}: the database is unavailable; nothing stored or sent`);
      return { response: reject(503, options.unavailable, { 'retry-after': '30' }) };
    }
    // A broken counter must not close the form: let the request through, and say so.
    console.error(`${options.bucket}: the rate limit could not be checked`, (error as Error)?.name);
  }

  let bytes: Uint8Array | 'too-large';
  try {
    bytes = await readCapped(req, options.maxBytes);
  } catch {
    return { response: reject(400, 'The form could not be read. Please try again.') };
  }
  if (bytes === 'too-large') return { response: reject(413, options.tooLarge) };

  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { response: reject(400, 'Send the form as a JSON object.') };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { response: reject(400, 'Send the form as a JSON object.') };
  }
  return { body: body as Record<string, unknown>, clientIp };
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
 * Whether a POST comes from a page of this site. Browsers send `Origin` with every POST made by
 * `fetch`; failing that, `Sec-Fetch-Site: same-origin` vouches for it. A POST with neither comes
 * from no browser we serve (curl, a script) and is refused: such a client can claim any origin
 * anyway, so it gains nothing by the refusal but is reminded to say where it comes from.
 */
export function isSameOrigin(req: Request): boolean {
  const origin = req.headers.get('origin');
  if (origin !== null) return origin !== 'null' && allowedOrigins(req).has(origin);
  return req.headers.get('sec-fetch-site') === 'same-origin';
}

/** Netlify's view of the client address, else its header, else one shared 'unknown' bucket. */
export function clientIpOf(req: Request, context: ClientContext | undefined): string {
  const ip = context?.ip || req.headers.get('x-nf-client-connection-ip');
  return ip?.trim() || 'unknown';
}

/** Reads at most `max` bytes of the body, giving up as soon as more arrive. */
async function readCapped(req: Request, max: number): Promise<Uint8Array | 'too-large'> {
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
