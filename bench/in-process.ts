/**
 * The bench's in-process side (a child process of bench/functions.ts): imports a function's
 * module as `npm start` runs it (compiled into `.netlify/start/`) and calls its
 * default export with a `Request` and a minimal `Context`, timing each call (until the answer's
 * body is read) inside this process, so that the parent's messaging is not counted.
 *
 * Messages in: `{ load: { name, file } }`, then `{ call: { name, url, body, headers } }`;
 * out: `{ loaded: name }`, `{ ms, status }` or `{ error }`.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

type Handler = (request: Request, context: unknown) => Promise<Response>;
const handlers = new Map<string, Handler>();
const pending = new Set<Promise<unknown>>();

interface Call {
  name: string;
  url: string;
  body: string;
  headers: Record<string, string>;
}

async function call({ name, url, body, headers }: Call) {
  const handler = handlers.get(name);
  if (!handler) throw new Error(`${name} is not loaded`);
  const started = performance.now();
  const request = new Request(url, { method: 'POST', headers, body });
  const context = {
    ip: '127.0.0.1',
    requestId: randomUUID(),
    geo: {},
    params: {},
    url: new URL(url),
    waitUntil: (promise: Promise<unknown>) => {
      const tracked = Promise.resolve(promise)
        .catch(() => undefined)
        .finally(() => pending.delete(tracked));
      pending.add(tracked);
    },
  };
  const response = await handler(request, context);
  await response.text();
  return { ms: performance.now() - started, status: response.status };
}

process.on('message', (message: { load?: { name: string; file: string }; call?: Call }) => {
  void (async () => {
    try {
      if (message.load) {
        const module = (await import(pathToFileURL(message.load.file).href)) as {
          default: Handler;
        };
        handlers.set(message.load.name, module.default);
        process.send!({ loaded: message.load.name });
      } else if (message.call) {
        process.send!(await call(message.call));
      }
    } catch (error) {
      process.send!({ error: (error as Error)?.name ?? String(error) });
    }
  })();
});
process.on('disconnect', () => {
  void Promise.allSettled([...pending]).then(() => process.exit(0));
});
