/**
 * The embedded Postgres (PGlite, scripts/embedded-db.ts) and its
 * one-session-at-a-time proxy (scripts/db-session-lock.ts) in a worker thread of their own.
 * PGlite runs Postgres compiled to WebAssembly with synchronous file access: on the server's main
 * thread every statement would stop the static files and the functions meanwhile, and a function
 * busy on the main thread (a waiver's PDF) would hold up every other connection's statements in
 * the proxy. Here both have their own thread (and CPU), and talk Postgres over TCP as before.
 *
 * In: workerData `{ directory, migrations? }`, then the message 'stop'.
 * Out: `{ url, applied }` once started (`url`: the proxy's; or `{ error }`), then 'stopped'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startSessionLock } from '../db-session-lock.ts';
import { startEmbeddedDatabase } from '../embedded-db.ts';

const { directory, migrations } = workerData as { directory: string; migrations?: string };
const port = parentPort!;

try {
  const db = await startEmbeddedDatabase(directory);
  const applied = migrations ? await db.applyMigrations(migrations) : [];
  const lock = await startSessionLock(db.url);
  port.on('message', (message) => {
    if (message !== 'stop') return;
    void lock
      .close()
      .then(() => db.stop())
      .catch(() => undefined)
      .finally(() => port.postMessage('stopped'));
  });
  port.postMessage({ url: lock.url, applied });
} catch (error) {
  port.postMessage({ error: (error as Error)?.message ?? String(error) });
}
