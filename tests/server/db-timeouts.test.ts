/**
 * Which settings give the functions' database code (src/server/platform/db.ts) connection and statement
 * timeouts, found out against a database that hangs (a listener that never answers) and a real
 * PostgreSQL. These pin down the change db.ts needs; they test `pg` and `@netlify/database`, not
 * our code, so a dependency upgrade that changes the answer shows up here.
 *
 * Findings: `getDatabase()` builds `new pg.Pool({ connectionString })` and takes no other pool
 * option; pg reads no connection timeout from a connection string (`connect_timeout` is ignored),
 * so a pool from `getDatabase()` waits forever for a database that accepts and never answers. A
 * `statement_timeout` in the connection string does reach the server (57014 after it), but a
 * server that never answers needs client-side limits: `connectionTimeoutMillis` and
 * `query_timeout`, which only the Pool constructor takes. And a client whose query timed out must
 * be released with the error (`client.release(error)`), or the pool hands out a connection still
 * busy with it.
 */
import { getDatabase } from '@netlify/database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresServer } from '../../scripts/postgres.ts';
import { startHangingDatabase, type HangingDatabase } from './harness.ts';

let hanging: HangingDatabase | undefined;
let hangingUrl: string;

beforeAll(async () => {
  hanging = await startHangingDatabase();
  hangingUrl = hanging.url;
});
afterAll(async () => {
  await hanging?.close();
});

/** The error a promise rejects with (it must reject). */
async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: Error & { code?: string }) => error,
  );
}

const ends = (pool: { end(): Promise<void> }) => pool.end().catch(() => undefined);

/** The pool `getDatabase()` builds (pg's, as NETLIFY_DB_DRIVER is not 'serverless' here). */
const poolOf = (connectionString: string) => getDatabase({ connectionString }).pool as pg.Pool;

describe('a database that accepts and never answers', () => {
  test('a pool from getDatabase() waits for ever, whatever the connection string says', async () => {
    for (const url of [
      hangingUrl,
      `${hangingUrl}?connect_timeout=1&statement_timeout=1000&query_timeout=1000`,
    ]) {
      const pool = poolOf(url);
      let settled = false;
      void pool.query('SELECT 1').then(
        () => (settled = true),
        () => (settled = true),
      );
      // A pool asked after it, with a 2 s connection timeout, gives up: any limit of the first
      // (the string asks for 1 s) would have fired before this one, both timers of this process.
      const control = new pg.Pool({ connectionString: hangingUrl, connectionTimeoutMillis: 2_000 });
      expect((await failure(control.query('SELECT 1'))).message).toMatch(/timeout/);
      expect(settled, url).toBe(false);
      void ends(control);
      void ends(pool);
    }
  });

  test('a pg.Pool with connectionTimeoutMillis gives up, with no SQLSTATE', async () => {
    const pool = new pg.Pool({
      connectionString: hangingUrl,
      connectionTimeoutMillis: 1_500,
      query_timeout: 5_000,
    });
    pool.on('error', () => undefined);
    const query = await failure(pool.query('SELECT 1'));
    expect(query.message).toMatch(/timeout/);
    // db.ts counts an error without a five-character SQLSTATE as an outage: 503.
    expect(query.code).toBeUndefined();
    expect((await failure(pool.connect())).message).toMatch(/timeout/);
    await ends(pool);
  });
});

describe('a real PostgreSQL whose statements are slow', () => {
  let postgres: PostgresServer;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(async () => {
    await postgres?.stop();
  });

  test('statement_timeout in the connection string reaches the server: 57014', async () => {
    const pool = poolOf(`${postgres.url()}?statement_timeout=1000`);
    // Cancelled by the server (the statement would otherwise end, without error, after 30 s).
    const error = await failure(pool.query('SELECT pg_sleep(30)'));
    // Class 57 (operator intervention): db.ts already counts it as an outage.
    expect(error.code).toBe('57014');
    await ends(pool);
  });

  test('query_timeout ends the wait client-side; the client must then be released with the error', async () => {
    const pool = new pg.Pool({ connectionString: postgres.url(), max: 1, query_timeout: 1_000 });
    pool.on('error', () => undefined);
    // Holds an advisory lock, so that a statement waiting for it runs until this lets go.
    const holder = new pg.Client({ connectionString: postgres.url() });
    await holder.connect();
    const backend = async (from: pg.Pool | pg.PoolClient) =>
      (await from.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    try {
      // Released without the error (what db.ts's transaction() did): the pool hands out the same
      // connection, and the next query answers only once the timed-out statement has finished.
      await holder.query('SELECT pg_advisory_lock(1)');
      let client = await pool.connect();
      const first = await backend(client);
      expect((await failure(client.query('SELECT pg_advisory_lock(1)'))).message).toBe(
        'Query read timeout',
      );
      client.release();
      let unlocked = false;
      const reused = pool
        .query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
        .then(({ rows }) => ({ pid: rows[0]!.pid, afterUnlock: unlocked }));
      // That connection is still waiting for the lock, in the database's own view...
      await expect
        .poll(
          async () =>
            (
              await holder.query<{ waiting: boolean }>(
                `SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`,
                [first],
              )
            ).rows[0]?.waiting,
          { timeout: 30_000 },
        )
        .toBe(true);
      unlocked = true;
      await holder.query('SELECT pg_advisory_unlock(1)');
      // ...and the next query, on it, was answered only after the lock was let go.
      expect(await reused).toEqual({ pid: first, afterUnlock: true });

      // Released with the error: the pool drops that connection; the next query gets a fresh
      // one and is answered while the lock is still held.
      await holder.query('SELECT pg_advisory_lock(2)');
      client = await pool.connect();
      const dropped = await backend(client);
      const error = await failure(client.query('SELECT pg_advisory_lock(2)'));
      expect(error.message).toBe('Query read timeout');
      client.release(error);
      expect(await backend(pool)).not.toBe(dropped);
      await holder.query('SELECT pg_advisory_unlock(2)');
    } finally {
      await holder.end();
      await ends(pool);
    }
  });
});
