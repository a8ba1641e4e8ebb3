/**
 * The `Context` a function gets (Netlify's documented Functions v2 API, the type in
 * `@netlify/functions`), made for each request as Netlify's bootstrap makes it: the client's
 * address, a request id, `waitUntil`, cookies, route params, site and deploy facts. Geolocation
 * is empty (Netlify's edge knows it; a local server does not). Also the `Netlify` global
 * (`Netlify.env`, `Netlify.context`), which the bootstrap defines for every function.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@netlify/functions';
import { platformValue as env, readSetting } from '../../src/server/platform/settings.ts';

/** A cookie as `context.cookies.set()` takes it (the `Cookie` type of `@netlify/types`). */
interface Cookie {
  name: string;
  value: string;
  expires?: Date | number;
  maxAge?: number;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  unparsed?: string[];
}

const current = new AsyncLocalStorage<Context>();

/** `Netlify.env` and `Netlify.context`, as on Netlify (the environment is this process's). */
export function defineNetlifyGlobal(): void {
  const global = globalThis as { Netlify?: unknown };
  if (global.Netlify) return;
  global.Netlify = {
    get context() {
      return current.getStore() ?? null;
    },
    env: {
      delete: (key: string) => void delete process.env[key],
      get: (key: string) => process.env[key],
      has: (key: string) => Boolean(process.env[key]),
      set: (key: string, value: string) => void (process.env[key] = value),
      toObject: () =>
        Object.fromEntries(
          Object.entries(process.env).filter((entry): entry is [string, string] => !!entry[1]),
        ),
    },
  };
}

/** Runs `work` with `context` as `Netlify.context`. */
export function withContext<T>(context: Context, work: () => T): T {
  return current.run(context, work);
}

/** The promises given to `context.waitUntil`, so that shutting down can wait for them. */
export class PendingWork {
  private readonly pending = new Set<Promise<unknown>>();

  add(promise: unknown): void {
    const tracked = Promise.resolve(promise)
      .catch((error: unknown) => console.error('waitUntil work failed:', (error as Error)?.name))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves when everything added has settled, or after `timeoutMs`: whichever is first. */
  async settle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.pending]),
        new Promise((done) => (timer = setTimeout(done, deadline - Date.now()))),
      ]);
      clearTimeout(timer);
    }
    return this.pending.size === 0;
  }
}

function serializeCookie(cookie: Cookie): string {
  if (/[\s;,=]/.test(cookie.name) || /[\r\n;]/.test(cookie.value)) {
    throw new TypeError(`Invalid cookie: ${cookie.name}`);
  }
  const parts = [`${cookie.name}=${cookie.value}`];
  const hostPrefix = cookie.name.startsWith('__Host-');
  if (cookie.expires !== undefined) {
    parts.push(`Expires=${new Date(cookie.expires).toUTCString()}`);
  }
  if (cookie.maxAge !== undefined) parts.push(`Max-Age=${Math.floor(cookie.maxAge)}`);
  if (cookie.domain && !hostPrefix) parts.push(`Domain=${cookie.domain}`);
  if (cookie.path || hostPrefix) parts.push(`Path=${hostPrefix ? '/' : cookie.path}`);
  if (cookie.secure || hostPrefix || cookie.name.startsWith('__Secure-')) parts.push('Secure');
  if (cookie.httpOnly) parts.push('HttpOnly');
  if (cookie.sameSite) parts.push(`SameSite=${cookie.sameSite}`);
  parts.push(...(cookie.unparsed ?? []));
  return parts.join('; ');
}

/** `context.cookies`: reads the request's cookies; what is set is added to the response. */
export class CookieJar {
  readonly outgoing: string[] = [];
  private readonly incoming = new Map<string, string>();

  constructor(header: string | null) {
    for (const pair of (header ?? '').split(';')) {
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      if (!this.incoming.has(name)) this.incoming.set(name, pair.slice(at + 1).trim());
    }
  }

  get = (name: string): string => this.incoming.get(name) ?? '';

  set = (input: Cookie | string, value?: string): void => {
    const cookie = typeof input === 'string' ? { name: input, value: value ?? '' } : input;
    this.outgoing.push(serializeCookie(cookie));
  };

  delete = (input: string | { name: string; domain?: string; path?: string }): void => {
    const options = typeof input === 'string' ? { name: input } : input;
    this.set({ ...options, value: '', expires: 0 });
  };

  /** The function's response with the cookies it set added (a Response's headers may be frozen). */
  apply(response: Response): Response {
    if (this.outgoing.length === 0) return response;
    const headers = new Headers(response.headers);
    for (const cookie of this.outgoing) headers.append('set-cookie', cookie);
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}

export interface ContextInput {
  request: Request;
  ip: string;
  requestId: string;
  pattern?: string;
  cookies: CookieJar;
  waitUntil: (promise: unknown) => void;
}

function paramsOf(pattern: string | undefined, url: string): Record<string, string> {
  if (!pattern || !/[:*]/.test(pattern)) return {};
  try {
    const groups = new URLPattern({ pathname: pattern }).exec(url)?.pathname.groups ?? {};
    return Object.fromEntries(
      Object.entries(groups).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
  } catch {
    return {};
  }
}

export function createContext({
  request,
  ip,
  requestId,
  pattern,
  cookies,
  waitUntil,
}: ContextInput): Context {
  const context: Context = {
    account: { id: env('NETLIFY_ACCOUNT_ID') ?? '' },
    cookies: {
      get: cookies.get,
      set: cookies.set as Context['cookies']['set'],
      delete: cookies.delete,
    },
    deploy: {
      context: env('CONTEXT') ?? 'production',
      id: env('DEPLOY_ID') ?? '0',
      published: true,
    },
    geo: {},
    ip,
    json: (input: unknown) => Response.json(input),
    log: console.log,
    next: () => {
      throw new Error('`context.next` is not implemented for serverless functions');
    },
    params: paramsOf(pattern, request.url),
    requestId,
    rewrite: (url: string | URL) => fetch(new URL(url, request.url)),
    server: { region: env('AWS_REGION') },
    site: {
      id: env('SITE_ID'),
      name: env('SITE_NAME'),
      url: env('URL') ?? readSetting('SITE_URL')?.origin,
    },
    url: new URL(request.url),
    waitUntil: (promise: Promise<unknown>) => {
      if (promise === undefined) throw new TypeError('waitUntil: a promise is required');
      waitUntil(promise);
    },
  };
  return context;
}
