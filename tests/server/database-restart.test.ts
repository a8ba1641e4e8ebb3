/**
 * The self-hosted mode on a real PostgreSQL: migrations applied once, and the server surviving a
 * database restart.
 *
 * A restart (or failover) ends the connections the functions' pool keeps open. pg then emits
 * 'error' on the pool, and a pool with no 'error' listener throws it, ending the whole server:
 * src/server/platform/db.ts listens, and the next request reconnects.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensurePostgres, startPostgres, type PostgresServer } from '../../scripts/postgres.ts';
import { ensureBuilt, startStudio, timedContact } from './harness.ts';

const bin = ensurePostgres().bin;

describe('npm start on a real PostgreSQL', () => {
  let postgres: PostgresServer;
  beforeAll(async () => {
    ensureBuilt();
    postgres = await startPostgres();
  });
  afterAll(async () => {
    await postgres?.stop();
  });

  test('applies each migration once, recorded, and answers a message', async () => {
    const first = await startStudio({ env: { NETLIFY_DB_URL: postgres.url() } });
    try {
      expect(first.output()).toMatch(/Applied migrations: 0001_/);
      expect((await timedContact(first.url)).status).toBe(200);
    } finally {
      await first.stop();
    }
    const second = await startStudio({ env: { NETLIFY_DB_URL: postgres.url() } });
    await second.stop();
    expect(second.output()).not.toMatch(/Applied migrations/);
    const client = new pg.Client({ connectionString: postgres.url() });
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM netlify.migrations',
    );
    await client.end();
    expect(rows[0].n).toBeGreaterThanOrEqual(6);
  });

  test('survives the database ending its connections, and answers the next message', async () => {
    const studio = await startStudio({ env: { NETLIFY_DB_URL: postgres.url() } });
    try {
      expect((await timedContact(studio.url, 1)).status).toBe(200);
      const psql = spawnSync(
        join(bin, 'psql'),
        [
          postgres.url(),
          '-tAc',
          'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity ' +
            'WHERE pid <> pg_backend_pid() AND datname = current_database()',
        ],
        { encoding: 'utf8' },
      );
      expect(psql.status).toBe(0);
      await new Promise((done) => setTimeout(done, 1_000));
      expect(studio.child.exitCode).toBeNull();
      expect((await timedContact(studio.url, 2)).status).toBe(200);
    } finally {
      await studio.stop();
    }
  });
});
