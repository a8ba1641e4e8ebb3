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

/** How a promise ends within `ms`: its value, its error, or 'pending'. */
async function settleWithin<T>(promise: Promise<T>, ms: number) {
  const started = performance.now();
  const outcome = await Promise.race([
    promise.then(
      (value) => ({ state: 'resolved' as const, value }),
      (error: Error & { code?: string }) => ({ state: 'rejected' as const, error }),
    ),
    new Promise<{ state: 'pending' }>((done) => setTimeout(() => done({ state: 'pending' }), ms)),
  ]);
  return { ...outcome, ms: performance.now() - started };
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
      const outcome = await settleWithin(pool.query('SELECT 1'), 3_000);
      expect(outcome.state, url).toBe('pending');
      void ends(pool);
    }
  });

  test('a pg.Pool with connectionTimeoutMillis gives up in time, with no SQLSTATE', async () => {
    const pool = new pg.Pool({
      connectionString: hangingUrl,
      connectionTimeoutMillis: 1_500,
      query_timeout: 5_000,
    });
    pool.on('error', () => undefined);
    const query = await settleWithin(pool.query('SELECT 1'), 5_000);
    expect(query.state).toBe('rejected');
    expect(query.ms).toBeLessThan(2_500);
    // db.ts counts an error without a five-character SQLSTATE as an outage: 503.
    if (query.state === 'rejected') expect(query.error.code).toBeUndefined();
    const connect = await settleWithin(pool.connect(), 5_000);
    expect(connect.state).toBe('rejected');
    expect(connect.ms).toBeLessThan(2_500);
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

  test('statement_timeout in the connection string reaches the server: 57014 in time', async () => {
    const pool = poolOf(`${postgres.url()}?statement_timeout=1000`);
    const outcome = await settleWithin(pool.query('SELECT pg_sleep(5)'), 4_000);
    expect(outcome.state).toBe('rejected');
    // Class 57 (operator intervention): db.ts already counts it as an outage.
    if (outcome.state === 'rejected') expect(outcome.error.code).toBe('57014');
    expect(outcome.ms).toBeLessThan(2_500);
    await ends(pool);
  });

  test('query_timeout ends the wait client-side; the client must then be released with the error', async () => {
    const pool = new pg.Pool({ connectionString: postgres.url(), max: 1, query_timeout: 1_000 });
    pool.on('error', () => undefined);

    // Released without the error (what db.ts's transaction() does today): the next query waits
    // for the timed-out statement to finish on that same connection.
    let client = await pool.connect();
    const first = await settleWithin(client.query('SELECT pg_sleep(3)'), 5_000);
    expect(first.state).toBe('rejected');
    expect(first.ms).toBeLessThan(2_000);
    client.release();
    const reused = await settleWithin(pool.query('SELECT 1'), 5_000);
    expect(reused.ms).toBeGreaterThan(1_000);

    // Released with the error: the pool drops that connection, the next query is at once.
    client = await pool.connect();
    const second = await settleWithin(client.query('SELECT pg_sleep(3)'), 5_000);
    expect(second.state).toBe('rejected');
    client.release(second.state === 'rejected' ? second.error : undefined);
    const fresh = await settleWithin(pool.query('SELECT 1'), 5_000);
    expect(fresh.state).toBe('resolved');
    expect(fresh.ms).toBeLessThan(500);
    await ends(pool);
  });
});
