/**
 * `npm run dev`: Astro's dev server renders the pages (a content edit shows on reload), and the
 * functions run as `npm start` runs them: this integration starts `npm start` itself
 * (`scripts/serve.ts --no-build`, on a free port of 127.0.0.1, with the same database, limits and
 * Context) beside the dev server, and passes it every request a function answers (a function's
 * `path`, or `/.netlify/functions/<name>`), streamed both ways. The site's own address for the
 * functions (`URL`: the links they mail, the origin the forms accept) is the dev server's, unless
 * SITE_URL is set. After editing `functions/` or `src/server/`, restart `npm run dev`. A page
 * rendered on demand (`/consultation`, with the database's free slots) is the last build's, as
 * `npm start` runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AstroIntegration } from 'astro';
import { readSetting } from '../../src/server/platform/settings.ts';
import { ON_DEMAND_ROUTES } from '../../src/integrations/on-demand-routes.ts';
import type { ListedFunction } from './bundles.ts';
import { EDITOR_API } from './editor.ts';
import { createRouter, type LoadedFunction } from './functions.ts';

type Route = ReturnType<typeof createRouter>;

function pass(req: IncomingMessage, res: ServerResponse, to: string) {
  const target = new URL(to);
  const onward = forward(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  onward.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  res.once('close', () => {
    if (!res.writableFinished) onward.destroy();
  });
  req.pipe(onward);
}

/** Starts `npm start` without a build; resolves with its address once it serves. */
function startFunctions(root: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [join(root, 'scripts', 'serve.ts'), '--no-build'], {
    cwd: root,
    env: { ...env, HOST: '127.0.0.1', PORT: '0' },
    // The channel closes when this process ends, however it ends: `npm start` then stops.
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const ready = new Promise<string | undefined>((resolve) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      seen = (seen + String(chunk)).slice(-4096);
      const url = /Serving the studio site on (\S+)/.exec(seen)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', () => resolve(undefined));
  });
  return { child, ready };
}

async function routerOf(root: string): Promise<Route> {
  const stamp = JSON.parse(
    await readFile(join(root, '.netlify', 'start', 'functions.json'), 'utf8'),
  ) as { listed: ListedFunction[] };
  const onDemand = await readFile(join(root, ON_DEMAND_ROUTES), 'utf8')
    .then((text) => [{ name: 'ssr', routes: JSON.parse(text), excludedRoutes: [] }])
    .catch(() => []);
  return createRouter([...stamp.listed, ...onDemand] as LoadedFunction[]);
}

export default function devFunctions(): AstroIntegration {
  const root = process.cwd();
  let child: ChildProcess | undefined;
  let running: Promise<{ url: string; route: Route } | undefined> = Promise.resolve(undefined);
  return {
    name: 'studio-functions',
    hooks: {
      'astro:server:setup': ({ server }) => {
        server.middlewares.use((req, res, next) => {
          void running.then((functions) => {
            const path = new URL(req.url ?? '/', 'http://dev').pathname;
            // The functions, and the content editor's local backend (editor.ts).
            if (!functions) return next();
            if (path !== EDITOR_API && !functions.route(path, req.method ?? 'GET')) return next();
            pass(req, res, functions.url);
          });
        });
      },
      'astro:server:start': ({ address, logger }) => {
        const env = { ...process.env };
        if (!readSetting('SITE_URL') && !env.URL) env.URL = `http://127.0.0.1:${address.port}`;
        const started = startFunctions(root, env);
        child = started.child;
        running = started.ready.then(async (url) => {
          if (url) return { url, route: await routerOf(root) };
          logger.error('The functions did not start (see above): pages only');
          return undefined;
        });
      },
      'astro:server:done': async () => {
        const stopping = child;
        if (!stopping || stopping.exitCode !== null) return;
        const ended = new Promise((resolve) => stopping.once('exit', resolve));
        stopping.kill('SIGTERM');
        await ended;
      },
    },
  };
}
