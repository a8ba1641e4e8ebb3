/**
 * The database the functions use (`NETLIFY_DB_URL`, read by `getDatabase()` of
 * `@netlify/database`), with the migrations of netlify/database/migrations applied in name order,
 * each once, recorded in `netlify.migrations` (the table Netlify's local database tooling keeps).
 *
 * - Unset `NETLIFY_DB_URL` (the default): the embedded Postgres (PGlite, scripts/embedded-db.ts),
 *   kept in `.netlify/db` — the folder Netlify's emulator used, so the data of earlier runs is
 *   still there — and run in a worker thread (embedded-db-worker.ts). It is one Postgres session
 *   shared by every connection, so the functions reach it through scripts/db-session-lock.ts,
 *   which lets one connection (one transaction) through at a time.
 * - `NETLIFY_DB_URL` set: that Postgres, used directly (a real server isolates its connections).
 *   Its migrations are applied with `applyMigrations()` of `@netlify/database-dev` (the same code
 *   as for the embedded one) over a `pg` client, under an advisory lock so that two servers
 *   starting at once do not both apply one. An unreachable database does not stop the server:
 *   it keeps trying in the background, and the forms answer 503 meanwhile.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { applyMigrations, type SQLExecutor } from '@netlify/database-dev';
import pg from 'pg';
import { mailDue } from '../../src/server/platform/outbox-due.ts';
import { inTransaction } from '../../src/server/platform/transaction.ts';

export interface Database {
  kind: 'embedded' | 'external';
  /** The connection string the functions get. */
  url: string;
  /** Whether any outbox mail is due (one cheap query); true when it cannot tell. */
  mailIsDue(): Promise<boolean>;
  close(): Promise<void>;
}

/** Client-side limits for the server's own connections: a hanging database costs seconds. */
const TIMEOUTS = { connectionTimeoutMillis: 5_000, query_timeout: 10_000 };
const MIGRATION_LOCK = 7_346_015_011;

const DUE = `SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE ${mailDue()}) AS due`;

function duePool(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 1, ...TIMEOUTS });
  // An idle connection the database drops must not take the server down with it.
  pool.on('error', () => undefined);
  return {
    async mailIsDue() {
      try {
        const { rows } = await pool.query<{ due: boolean }>(DUE);
        return rows[0]?.due !== false;
      } catch {
        return true;
      }
    },
    end: () => pool.end().catch(() => undefined),
  };
}

/** `applyMigrations` needs exec, query and transaction: one `pg` client gives all three. */
export async function migrateExternal(url: string, directory: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, ...TIMEOUTS, query_timeout: 120_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const executor: SQLExecutor = {
      exec: (sql) => client.query(sql),
      query: async <T>(sql: string, params?: unknown[]) =>
        (await client.query(sql, params)) as unknown as { rows: T[] },
      transaction: (work) => inTransaction(client, () => work(executor)),
    };
    return await applyMigrations(executor, directory);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const isConnectionProblem = (error: unknown) => {
  const code = (error as { code?: unknown })?.code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|57)/.test(code);
};

export async function startDatabase(options: {
  root: string;
  migrationsDir: string | undefined;
  externalUrl: string | undefined;
  localDbDir?: string;
}): Promise<Database> {
  const migrations =
    options.migrationsDir && existsSync(options.migrationsDir) ? options.migrationsDir : undefined;
  const report = (applied: string[]) => {
    if (applied.length > 0) console.log(`Applied migrations: ${applied.join(', ')}`);
  };

  if (options.externalUrl) {
    const url = options.externalUrl;
    let retry: NodeJS.Timeout | undefined;
    let closed = false;
    const migrate = async (): Promise<void> => {
      if (!migrations || closed) return;
      try {
        report(await migrateExternal(url, migrations));
      } catch (error) {
        // A broken migration is a mistake to fix now; an unreachable database may come back.
        if (!isConnectionProblem(error)) throw error;
        console.warn(
          `The database at NETLIFY_DB_URL cannot be reached (${(error as Error).message}); ` +
            'the forms answer 503 until it can. Trying again in 10 s.',
        );
        retry = setTimeout(() => void migrate().catch(fatal), 10_000);
        retry.unref();
      }
    };
    const fatal = (error: unknown) => {
      console.error(`Migrations failed: ${(error as Error).message}`);
      process.exitCode = 1;
    };
    await migrate();
    const due = duePool(url);
    return {
      kind: 'external',
      url,
      mailIsDue: due.mailIsDue,
      async close() {
        closed = true;
        clearTimeout(retry);
        await due.end();
      },
    };
  }

  const directory = options.localDbDir ?? join(options.root, '.netlify', 'db');
  const worker = new Worker(new URL('./embedded-db-worker.ts', import.meta.url), {
    workerData: { directory, migrations },
  });
  const started = await new Promise<{ url?: string; applied?: string[]; error?: string }>(
    (resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    },
  );
  if (!started.url) {
    await worker.terminate();
    throw new Error(`The embedded database did not start: ${started.error}`);
  }
  report(started.applied ?? []);
  const due = duePool(started.url);
  return {
    kind: 'embedded',
    url: started.url,
    mailIsDue: due.mailIsDue,
    async close() {
      await due.end();
      await new Promise((resolve) => {
        worker.once('message', resolve);
        worker.once('exit', resolve);
        worker.postMessage('stop');
      });
      await worker.terminate();
    },
  };
}
