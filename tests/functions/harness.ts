/**
 * Request helpers of the function tests, and the older `startDatabase()`/`startSmtp()` entry
 * points, now thin wrappers of the shared fixture (tests/fixtures/function-env.ts): new and
 * converted files call `useFunctionEnv()` instead.
 */
import type { SQLExecutor } from '@netlify/database-dev';
import { startFunctionDatabase } from '../fixtures/function-env';

export { MIGRATIONS } from '../fixtures/databases';
export { startSmtp, type Envelope, type TestSmtp } from '../fixtures/smtp';

export interface TestDatabase {
  db: SQLExecutor;
  url: string;
  /** Empties every table the migrations made (keeps the migrations applied). */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

/** The file's own database (see useFunctionEnv() for which one), `NETLIFY_DB_URL` set to it. */
export async function startDatabase(): Promise<TestDatabase> {
  return startFunctionDatabase();
}

/**
 * A JSON POST as the site's own page sends it: `Origin` is the URL's own origin (browsers send it
 * with every POST), so the origin check lets it through. `body` is sent as is when a string.
 */
export function jsonPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(url, {
    method: 'POST',
    headers: { origin: new URL(url).origin, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A body that produces `next()` chunk after chunk, never ending: streamed, with no length. */
export function streamOf(next: () => Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      controller.enqueue(next());
    },
  });
}
