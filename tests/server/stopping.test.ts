/**
 * `npm start` stops when told, whatever its database does: SIGTERM ends it, exit code 0, even
 * while one of its own statements waits on the database (here the outbox's "is any mail due?",
 * blocked by a lock another session holds). That statement's own limit is set to ten minutes, so a
 * server that waited for it would be killed by the harness (after 20 s) instead of exiting 0: the
 * test sees the stop happen, without timing it.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPostgres, type PostgresServer } from '../../scripts/postgres.ts';
import { ensureBuilt, startStudio } from './harness.ts';

let postgres: PostgresServer;

beforeAll(async () => {
  ensureBuilt();
  postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

test('SIGTERM while the outbox check waits on a locked table: exit 0 while that statement still waits', async () => {
  const studio = await startStudio({
    env: {
      NETLIFY_DB_URL: postgres.url(),
      // Its migrations applied at the start even when the first connection is slow (a busy machine).
      DB_CONNECT_TIMEOUT_MS: '60000',
      OUTBOX_INTERVAL_MS: '100',
      SHUTDOWN_TIMEOUT_MS: '1000',
      DB_QUERY_TIMEOUT_MS: '600000',
    },
  });
  const locker = new pg.Client({ connectionString: postgres.url() });
  const watcher = new pg.Client({ connectionString: postgres.url() });
  try {
    await locker.connect();
    await watcher.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE mail_outbox IN ACCESS EXCLUSIVE MODE');
    // Until the server's check is waiting for the lock.
    for (;;) {
      const { rows } = await watcher.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE '%mail_outbox%' AND pid <> pg_backend_pid()`,
      );
      if (rows[0]!.n > 0) break;
      await new Promise((done) => setTimeout(done, 50));
    }
    const { code } = await studio.stop();
    // Not killed by the harness: it stopped by itself while the statement still waited.
    expect(code).toBe(0);
    expect(studio.output()).toMatch(/SIGTERM: stopping/);
  } finally {
    await studio.stop();
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end().catch(() => undefined);
    await watcher.end().catch(() => undefined);
  }
});
