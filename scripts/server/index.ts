/**
 * The studio's production server: `npm start` (scripts/serve.ts) runs `startServer()`, and so do
 * the self-hosted mode and the server tests. One Node process serves the published folder as
 * Netlify's CDN does and runs each function warm, in-process, compiled from its source
 * (docs/running.md, "What npm start does"). At start, the site's build (when asked for), the
 * functions' compile and the database's start run side by side; the server listens once all three
 * are done.
 *
 * Order of routing, as on Netlify: a function's `path` (unless it prefers static files and one
 * exists), then the redirect rules, then static files, then the 404 page.
 *
 * Bad clients: there is no per-request slot anyone could hold; a body streams into the function
 * as it arrives (paused while the function does not read); a declared or streamed body over
 * MAX_BODY_BYTES gets 413 at once; a client that stops sending gets 408 (BODY_IDLE_TIMEOUT_MS,
 * REQUEST_TIMEOUT_MS); slow headers get Node's own 408 (HEADERS_TIMEOUT_MS); a client that
 * leaves aborts its request's `signal`; after any refusal the server hangs up.
 */
import { randomUUID } from 'node:crypto';
import { chmod, cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { ON_DEMAND_ROUTES } from '../../src/integrations/on-demand-routes.ts';
import { BodyError, streamBody, type BodyProblem } from './body.ts';
import { prepareFunctions } from './bundles.ts';
import {
  CookieJar,
  PendingWork,
  createContext,
  defineNetlifyGlobal,
  withContext,
} from './context.ts';
import { startDatabase, type Database } from './database.ts';
import {
  createRouter,
  loadFunctions,
  loadOnDemand,
  type FunctionMatch,
  type LoadedFunction,
} from './functions.ts';
import { HOP_BY_HOP, hasBody, prepareHead, sendProblem, sendResponse, sendText } from './http.ts';
import { readSiteConfig } from './netlify-config.ts';
import { dailyTime } from '../../src/server/platform/schedule.ts';
import { startDailyTimer, startIntervalTimer, type DailyTimer } from './daily.ts';
import { startOutboxTimer } from './outbox.ts';
import { createEditorBackend, EDITOR_API } from './editor.ts';
import { normalPath, type RequestPath } from './paths.ts';
import { loadRules, type RedirectMatch } from './rules.ts';
import { readSetting } from '../../src/server/platform/settings.ts';
import { isSelfHosted, readSettings, type Settings } from './settings.ts';
import { buildSite, type LastGood } from './site-build.ts';
import { step } from './progress.ts';
import { StaticSite } from './static.ts';

export interface StudioServer {
  url: string;
  server: Server;
  database: Database;
  functions: LoadedFunction[];
  /** Stops listening, lets requests in flight and `waitUntil` work finish (bounded), closes the database. */
  close(): Promise<void>;
}

const TOO_LARGE = 'The form is too large to send. Please shorten it and try again.';
const TOO_SLOW =
  'The form took too long to arrive. Please check your connection and send it again.';
const FAILED = 'Something went wrong on our side, so nothing was sent. Please try again.';
const TIMED_OUT = 'The server took too long to answer. Please try again in a moment.';

class FunctionTimeout extends Error {
  constructor(name: string, ms: number) {
    super(`${name} did not answer within ${ms} ms`);
    this.name = 'FunctionTimeout';
  }
}

const lastOf = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value.join(',') : (value ?? ''))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .at(-1);

/** When each request began to arrive (its headers had been read). */
const arrival = new WeakMap<IncomingMessage, number>();

/** A host name or address with an optional port: nothing that could change the URL's path. */
const HOST_HEADER = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i;

const plainIp = (address: string) => (address.startsWith('::ffff:') ? address.slice(7) : address);

/**
 * Keeps `.netlify/state.json`'s `dbConnectionString` (for psql) as Netlify's emulator did. It
 * holds the embedded database's password, so only the user running the server may read it.
 */
async function recordState(root: string, url: string | undefined) {
  const file = join(root, '.netlify', 'state.json');
  const state = await readFile(file, 'utf8')
    .then((text) => JSON.parse(text) as Record<string, unknown>)
    .catch(() => ({}) as Record<string, unknown>);
  if (url) state.dbConnectionString = url;
  else delete state.dbConnectionString;
  await writeFile(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
    .then(() => chmod(file, 0o600))
    .catch(() => undefined);
}

export interface StartOptions {
  root?: string;
  settings?: Settings;
  /** Build the site first (`astro build`), unless it is unchanged since its last build. */
  build?: boolean;
  /** Aborted: the start stops (a build under way is ended, the database closed) and rejects. */
  signal?: AbortSignal;
}

/**
 * After the content editor saved a file: the site built again, one build at a time, and once more
 * when something was saved while a build ran; until a build is done the last one is served. Then
 * `built()` (the pages rendered on demand loaded again).
 */
function rebuilder(root: string, publishDir: string, built: () => Promise<void>): () => void {
  let running: Promise<unknown> | undefined;
  let again = false;
  const run = () => {
    const began = performance.now();
    running = buildSite(root, publishDir)
      .done.then(async (outcome) => {
        // A build that failed keeps the site as it was, and says why.
        if (typeof outcome === 'object') return servingLastGood(outcome);
        await built();
        const seconds = ((performance.now() - began) / 1000).toFixed(1);
        console.log(`Rebuilt after the editor's save in ${seconds} s`);
      })
      .catch(() => console.error("The rebuild after the editor's save stopped (see above)"))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return () => {
    if (running) again = true;
    else run();
  };
}

/**
 * The pages rendered on demand of a new build, from a copy of the adapter's function (`.netlify/
 * start/ssr-<n>`): Node loads a module once per path, and the build has replaced the chunks the
 * loaded one would still import. The copy before the last is removed.
 */
async function freshOnDemand(root: string): Promise<LoadedFunction | undefined> {
  const start = join(root, '.netlify', 'start');
  const copies = (await readdir(start).catch(() => [] as string[])).filter((name) =>
    /^ssr-\d+$/.test(name),
  );
  const copy = join(start, `ssr-${Date.now()}`);
  await cp(dirname(join(root, ON_DEMAND_ROUTES)), copy, {
    recursive: true,
    verbatimSymlinks: true,
  });
  const loaded = await loadOnDemand(root, copy);
  for (const old of copies.sort().slice(0, -1)) {
    await rm(join(start, old), { recursive: true, force: true });
  }
  return loaded;
}

/**
 * The build failed and the last good one is served, as a deploy keeps the last good site: what is
 * wrong, in the build's own words (a content mistake names its file, line and field), and that
 * the site served is the one built before. The functions read the content that site was built from.
 */
function servingLastGood(last: LastGood) {
  const content = last.problems.every((line) => line.startsWith('content/'));
  console.error(
    [
      content
        ? 'The site was not built again: there is a mistake in the content.'
        : 'The site could not be built again:',
      ...last.problems.map((line) => `  ${line}`),
      `Until it is fixed, the site built on ${last.builtAt.slice(0, 16).replace('T', ' ')} UTC is served as it was. Fix it, then start again.`,
    ].join('\n'),
  );
  process.env.CONTENT_DIR ??= last.contentDir;
}

export async function startServer(options: StartOptions = {}): Promise<StudioServer> {
  const root = options.root ?? process.cwd();
  const settings = options.settings ?? readSettings();
  const site = await readSiteConfig(root);
  // The three slow parts at once: the site's build (a child process), the functions' compile,
  // and the database (a worker thread, or a server elsewhere).
  const build = options.build ? buildSite(root, site.publishDir) : undefined;
  const stopBuild = () => void build?.cancel();
  options.signal?.addEventListener('abort', stopBuild, { once: true });
  const embedded = !settings.databaseUrl;
  // A function's module reads its settings and the database's address when it first needs them,
  // not when it is loaded: it is loaded while the database starts.
  defineNetlifyGlobal();
  const [built, loaded, started] = await Promise.allSettled([
    build?.done,
    prepareFunctions(site).then(({ bundles }) =>
      step(
        `Loading ${bundles.length} functions`,
        () => loadFunctions(bundles),
        () => `Loaded ${bundles.length} functions`,
      ),
    ),
    step(
      embedded ? 'Starting the local database' : 'Connecting to the database (NETLIFY_DB_URL)',
      () =>
        startDatabase({
          root,
          migrationsDir: site.migrationsDir,
          externalUrl: settings.databaseUrl,
          localDbDir: settings.localDbDir,
        }),
      () => (embedded ? 'Started the local database' : 'Checked the database'),
    ),
  ]);
  options.signal?.removeEventListener('abort', stopBuild);
  const failed = [built, loaded, started].find((result) => result.status === 'rejected');
  if (failed || options.signal?.aborted) {
    if (started.status === 'fulfilled') await started.value.close();
    throw options.signal?.aborted ? new Error('stopped while starting') : failed!.reason;
  }
  const outcome = built.status === 'fulfilled' ? built.value : undefined;
  if (typeof outcome === 'object') servingLastGood(outcome);
  const database = (started as PromiseFulfilledResult<Database>).value;
  const functions = (loaded as PromiseFulfilledResult<LoadedFunction[]>).value;
  // Once the site is built: the pages Astro renders on demand, after every function of our own.
  let onDemand: LoadedFunction | undefined;
  try {
    onDemand = await step(
      'Loading the pages rendered on demand',
      () => loadOnDemand(root),
      (loaded) => (loaded ? 'Loaded the pages rendered on demand' : 'No pages rendered on demand'),
    );
  } catch (error) {
    await database.close();
    throw error;
  }
  if (onDemand) functions.push(onDemand);
  // The functions read it through getDatabase() of @netlify/database, as on Netlify.
  process.env.NETLIFY_DB_URL = database.url;
  let rules: Awaited<ReturnType<typeof loadRules>>;
  try {
    // Read once the site is built: its `_headers` come from the build.
    rules = await loadRules(site);
  } catch (error) {
    await database.close();
    throw error;
  }
  const files = new StaticSite(site.publishDir);
  let route = createRouter(functions);
  // The content editor's local backend: on this machine only, never on a self-hosted server.
  const rebuild = options.build
    ? rebuilder(root, site.publishDir, async () => {
        const fresh = await freshOnDemand(root);
        const at = functions.findIndex((func) => func.name === 'ssr');
        if (fresh && at >= 0) functions[at] = fresh;
        else if (fresh) functions.push(fresh);
        route = createRouter(functions);
      })
    : undefined;
  const editor =
    isSelfHosted(settings) || settings.trustProxy
      ? undefined
      : createEditorBackend({ root, saved: () => rebuild?.() });
  const pending = new PendingWork();
  const hostPart = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  let base = `http://${hostPart}:${settings.port}`;
  let inFlight = 0;
  /** Called when the last request in flight has ended (awaited while stopping). */
  let drained: (() => void) | undefined;
  let stopping = false;

  function clientIp(req: IncomingMessage): string {
    const peer = plainIp(req.socket.remoteAddress ?? '');
    if (!settings.trustProxy) return peer;
    const forwarded = lastOf(req.headers['x-forwarded-for']);
    return forwarded && isIP(plainIp(forwarded)) ? plainIp(forwarded) : peer;
  }

  function requestUrl(req: IncomingMessage): URL | undefined {
    const path = req.url ?? '/';
    if (!path.startsWith('/')) return undefined;
    const proto = settings.trustProxy ? lastOf(req.headers['x-forwarded-proto']) : undefined;
    const scheme = proto === 'https' ? 'https' : 'http';
    const host = req.headers.host;
    const usable = host !== undefined && HOST_HEADER.test(host);
    for (const origin of usable ? [`${scheme}://${host}`, base] : [base]) {
      try {
        const url = new URL(`${origin}${path}`);
        if (url.pathname.startsWith('/')) return url;
      } catch {
        // An unusable Host header: the server's own address will do.
      }
    }
    return undefined;
  }

  /** The request's body, streamed with the server's limits; a problem gets the client 408 or 413. */
  function bodyOf(req: IncomingMessage, onProblem: (problem: BodyProblem) => void) {
    const method = req.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD' || !hasBody(req)) return null;
    return streamBody(req, {
      maxBytes: settings.maxBodyBytes,
      idleTimeoutMs: settings.bodyIdleTimeoutMs,
      deadline: (arrival.get(req) ?? Date.now()) + settings.requestTimeoutMs,
      onProblem,
    });
  }

  function refuseBody(req: IncomingMessage, res: ServerResponse, problem: BodyProblem) {
    if (problem === 'too-large') sendProblem(req, res, 413, TOO_LARGE);
    else if (problem === 'timeout') sendProblem(req, res, 408, TOO_SLOW);
  }

  async function invoke(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    match: FunctionMatch,
  ): Promise<void> {
    const { func } = match;
    const method = req.method ?? 'GET';
    const requestId = randomUUID();
    const ip = clientIp(req);
    const aborter = new AbortController();
    let answered = false;

    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i].toLowerCase();
      // Netlify's own headers come from Netlify, never from the client.
      if (HOP_BY_HOP.has(name) || name.startsWith('x-nf-')) continue;
      headers.append(name, req.rawHeaders[i + 1]);
    }
    headers.set('x-nf-client-connection-ip', ip);
    headers.set('x-nf-request-id', requestId);
    if (!settings.trustProxy) headers.set('x-forwarded-for', ip);

    const body = bodyOf(req, (problem) => {
      aborter.abort(new BodyError(problem));
      if (problem === 'gone' || answered) return;
      answered = true;
      refuseBody(req, res, problem);
    });
    let request: Request;
    try {
      request = new Request(url, {
        method,
        headers,
        body,
        signal: aborter.signal,
        duplex: 'half',
      } as RequestInit);
    } catch {
      await body?.cancel();
      return sendProblem(req, res, 405, 'This method is not allowed here.');
    }
    res.once('close', () => {
      if (!res.writableFinished) aborter.abort(new BodyError('gone'));
    });

    const cookies = new CookieJar(headers.get('cookie'));
    const context = createContext({
      request,
      ip,
      requestId,
      pattern: match.pattern,
      cookies,
      waitUntil: (promise) => pending.add(promise),
    });
    let timer: NodeJS.Timeout | undefined;
    let response: unknown;
    const called = performance.now();
    try {
      response = await Promise.race([
        withContext(context, () => func.handler(request, context)),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new FunctionTimeout(func.name, settings.functionTimeoutMs)),
            settings.functionTimeoutMs,
          );
        }),
      ]);
    } catch (error) {
      if (answered || res.headersSent) return;
      answered = true;
      // The error's name only: its message or stack may quote what the visitor sent.
      if (error instanceof FunctionTimeout) {
        console.error(`${func.name}: no answer within ${settings.functionTimeoutMs} ms`);
        aborter.abort(error);
        return sendProblem(req, res, 504, TIMED_OUT);
      }
      console.error(`${func.name}: the function threw ${(error as Error)?.name ?? typeof error}`);
      return sendProblem(req, res, 500, FAILED);
    } finally {
      clearTimeout(timer);
    }
    // A function that returns no Response answers 204, as on Netlify.
    const answer = response instanceof Response ? response : new Response(null, { status: 204 });
    if (answered || res.destroyed) {
      await answer.body?.cancel().catch(() => undefined);
      return;
    }
    answered = true;
    // How long the function took to answer, so that the server's own share can be told apart.
    const timing = `function;dur=${(performance.now() - called).toFixed(1)}`;
    await sendResponse(req, res, cookies.apply(answer), {
      'x-nf-request-id': requestId,
      'server-timing': timing,
    });
  }

  /** The 404 page, with the `_headers` rules of `pathname` (the request's, as normalised). */
  async function sendNotFound(req: IncomingMessage, res: ServerResponse, pathname: string) {
    const page = await files.notFoundPage();
    if (!page) return sendText(req, res, 404, 'Not Found');
    prepareHead(req, res);
    files.send(req, res, page, 404, rules.headersFor(pathname));
  }

  async function serveStatic(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: RequestPath,
  ) {
    const found = await files.lookup(path);
    if (found.kind === 'none') return sendNotFound(req, res, path.decoded);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendText(req, res, 405, 'Method Not Allowed');
    }
    prepareHead(req, res);
    if (found.kind === 'redirect') {
      res.writeHead(301, {
        location: found.location + url.search,
        ...rules.headersFor(path.decoded),
      });
      res.end();
      return;
    }
    files.send(req, res, found.file, 200, rules.headersFor(path.decoded));
  }

  /** Applies a matched redirect rule; false when the request should go on to the static files. */
  async function applyRedirect(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: RequestPath,
    rule: RedirectMatch,
  ): Promise<boolean> {
    if (rule.force && rule.statusCode === 404 && !rule.target) {
      await sendNotFound(req, res, path.decoded);
      return true;
    }
    const readable = req.method === 'GET' || req.method === 'HEAD';
    if (!rule.force && readable && (await files.lookup(path)).kind === 'file') return false;
    const target = rule.target;
    if (rule.redirect) {
      const location = target.origin === url.origin ? target.pathname + target.search : target.href;
      prepareHead(req, res);
      res
        .writeHead(rule.statusCode, {
          ...rules.headersFor(path.decoded),
          location,
          'cache-control': 'public, max-age=0',
        })
        .end();
      return true;
    }
    if (rule.external) {
      // A proxy rule (`/x/* https://elsewhere/:splat 200`): the other server's answer, streamed.
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i].toLowerCase();
        if (!HOP_BY_HOP.has(name) && name !== 'host') headers.append(name, req.rawHeaders[i + 1]);
      }
      for (const [name, value] of Object.entries(rule.headers)) headers.set(name, value);
      const upstream = await fetch(target, {
        method: req.method,
        headers,
        body: bodyOf(req, (problem) => refuseBody(req, res, problem)),
        redirect: 'manual',
        signal: AbortSignal.timeout(settings.functionTimeoutMs),
        duplex: 'half',
      } as RequestInit).catch(() => undefined);
      if (!upstream) sendText(req, res, 502, 'Bad Gateway');
      else await sendResponse(req, res, upstream);
      return true;
    }
    const match = route(target.pathname, req.method ?? 'GET');
    if (match) {
      await invoke(req, res, url, match);
      return true;
    }
    if (!readable) return false;
    const targetPath = normalPath(target.pathname);
    const found = targetPath ? await files.lookup(targetPath) : ({ kind: 'none' } as const);
    if (found.kind !== 'file') return false;
    prepareHead(req, res);
    files.send(req, res, found.file, rule.statusCode || 200, rules.headersFor(path.decoded));
    return true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    arrival.set(req, Date.now());
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
    if (stopping) res.setHeader('connection', 'close');
    const url = requestUrl(req);
    if (!url) return sendText(req, res, 400, 'Bad Request');
    // Its own cap (a phone's photo), before the server's.
    if (editor && url.pathname === EDITOR_API) return editor.handle(req, res);
    const declared = Number(req.headers['content-length']);
    if (declared > settings.maxBodyBytes) return sendProblem(req, res, 413, TOO_LARGE);
    // Normalised once, here: a path written to slip past the rules below is not found.
    const path = normalPath(url.pathname);
    if (!path) return sendNotFound(req, res, url.pathname);

    const method = req.method ?? 'GET';
    const match = route(url.pathname, method);
    if (match) {
      const preferred =
        match.preferStatic && (method === 'GET' || method === 'HEAD')
          ? (await files.lookup(path)).kind === 'file'
          : false;
      if (!preferred) return invoke(req, res, url, match);
    }
    if (rules.hasRedirects) {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const rule = await rules.redirectFor(new Request(url, { headers }));
      if (rule && (await applyRedirect(req, res, url, path, rule))) return;
    }
    return serveStatic(req, res, url, path);
  }

  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      // Node's own limit, behind the server's JSON 408: a request nobody reads still ends.
      requestTimeout: settings.requestTimeoutMs + 5_000,
      connectionsCheckingInterval: 1_000,
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        console.error(`Request failed: ${(error as Error)?.name}`);
        if (!res.headersSent) sendText(req, res, 500, 'Internal Server Error');
        else res.destroy();
      });
    },
  );
  // `Expect: 100-continue`: refuse a declared size over the cap before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length']) > settings.maxBodyBytes) {
      return sendProblem(req, res, 413, TOO_LARGE);
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const url = `http://${hostPart}:${port}`;
  base = url;
  // The site's own address for the functions (siteOrigin() in src/server/platform/hosting.ts),
  // set as Netlify's local tools set it: SITE_URL, else the address this server listens on. The
  // links they mail and the origin they accept come from it, never from a request's Host.
  process.env.URL ||= readSetting('SITE_URL')?.origin ?? url;
  const keepsState = database.kind === 'embedded' && !settings.localDbDir;
  if (keepsState) await recordState(root, database.url);

  // Scheduled functions, run in-process from their bundles as Netlify's scheduler runs them.
  const scheduled = (func: LoadedFunction) => async () => {
    const request = new Request(`${url}/.netlify/functions/${func.name}`, {
      method: 'POST',
      headers: { 'user-agent': 'Netlify Clockwork', 'x-nf-event': 'schedule' },
      body: JSON.stringify({ next_run: new Date(Date.now() + 300_000).toISOString() }),
    });
    const context = createContext({
      request,
      ip: '127.0.0.1',
      requestId: randomUUID(),
      cookies: new CookieJar(null),
      waitUntil: (promise) => pending.add(promise),
    });
    const answer = await withContext(context, () => func.handler(request, context));
    return answer instanceof Response ? answer : new Response(null, { status: 204 });
  };
  // The outbox's every OUTBOX_INTERVAL_MS; a daily one (retention) at its minute; one every N
  // minutes (`*/N * * * *`: the classes' steps) every N minutes; any other schedule is Netlify's.
  const retryMail = functions.find((f) => f.name === 'retry-mail');
  const daily: DailyTimer[] = [];
  for (const func of functions) {
    if (!func.schedule || func === retryMail) continue;
    if (dailyTime(func.schedule)) {
      daily.push(
        startDailyTimer({ name: func.name, schedule: func.schedule, run: scheduled(func) }),
      );
    } else if (/^\*\/([1-9]\d?) \* \* \* \*$/.test(func.schedule.trim())) {
      // Every N minutes (the classes' timed steps), from the server's start.
      const minutes = Number(/^\*\/(\d+)/.exec(func.schedule.trim())![1]);
      daily.push(
        startIntervalTimer({ name: func.name, everyMs: minutes * 60_000, run: scheduled(func) }),
      );
    } else {
      console.warn(`${func.name} is scheduled (${func.schedule}); npm start does not run it`);
    }
  }
  const outbox = startOutboxTimer({
    intervalMs: retryMail ? settings.outboxIntervalMs : 0,
    mailIsDue: database.mailIsDue,
    run: scheduled(retryMail!),
  });

  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    database,
    functions,
    close() {
      closing ??= (async () => {
        stopping = true;
        const deadline = Date.now() + settings.shutdownTimeoutMs;
        server.close();
        server.closeIdleConnections();
        const left = () => Math.max(0, deadline - Date.now());
        await Promise.race([
          Promise.all([outbox.stop(), ...daily.map((timer) => timer.stop())]),
          new Promise((done) => setTimeout(done, left())),
        ]);
        if (inFlight > 0) {
          await new Promise<void>((done) => {
            const timer = setTimeout(done, left());
            drained = () => {
              clearTimeout(timer);
              done();
            };
          });
        }
        server.closeIdleConnections();
        await pending.settle(left());
        server.closeAllConnections();
        if (keepsState) await recordState(root, undefined);
        // An external database that hangs must not hold the stop: what is left of the time, and
        // at least a second for the embedded one to write its last pages.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          database.close(),
          new Promise((done) => (timer = setTimeout(done, Math.max(left(), 1_000)))),
        ]);
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}
