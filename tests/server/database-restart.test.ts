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
      // The server hears of it as each connection its pools kept closes: it says so for every
      // one, and lives on. A request before it has heard would still be handed a dead connection.
      const ended = Number(psql.stdout.trim());
      await new Promise<void>((heard, died) => {
        const { child } = studio;
        const check = () => {
          if ((studio.output().match(/an idle connection was lost/g) ?? []).length < ended) return;
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          child.off('exit', exited);
          heard();
        };
        const exited = (code: number | null) =>
          died(new Error(`npm start exited (${code}):\n${studio.output()}`));
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        child.once('exit', exited);
        check();
      });
      expect(studio.child.exitCode).toBeNull();
      expect((await timedContact(studio.url, 2)).status).toBe(200);
    } finally {
      await studio.stop();
    }
  });
});
