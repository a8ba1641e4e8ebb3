/**
 * The self-hosted mode on a real PostgreSQL: migrations applied once, and the server surviving a
 * database restart.
 *
 * A restart (or failover) ends the connections the functions' pool keeps open. pg then emits
 * 'error' on the pool for an idle connection, and on the connection itself for one a request
 * holds (or is handed just as it dies): unheard, either would end the whole server.
 * src/server/platform/db.ts listens to both; a request on a dead connection is answered 503, or
 * stored on a fresh one when nothing of it had reached the database.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensurePostgres, startPostgres, type PostgresServer } from '../../scripts/postgres.ts';
import { ensureBuilt, startStudio, sendContact } from './harness.ts';

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
    // A first connection that answers late on a busy machine is still the database: with the 5 s
    // default it once gave up under load, and the start went on without its migrations.
    const patient = { NETLIFY_DB_URL: postgres.url(), DB_CONNECT_TIMEOUT_MS: '60000' };
    const first = await startStudio({ env: patient });
    try {
      expect(first.output()).toMatch(/Applied migrations: 0001_/);
      expect((await sendContact(first.url)).status).toBe(200);
    } finally {
      await first.stop();
    }
    const second = await startStudio({ env: patient });
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

  test('survives the database ending its connections while requests hold them, and answers the next message', async () => {
    const studio = await startStudio({ env: { NETLIFY_DB_URL: postgres.url() } });
    try {
      expect((await sendContact(studio.url, 1)).status).toBe(200);
      // Requests in flight while the database ends every connection: some hold a connection
      // between two statements, some are handed one that is already dead. No wait for the
      // server to hear of it first: each request is answered (stored, or 503), none ends it.
      const statuses: number[] = [];
      for (let round = 0; round < 5; round += 1) {
        const requests = Array.from({ length: 24 }, (_, i) =>
          sendContact(studio.url, 100 * round + i).then(
            (answer) => answer.status,
            () => 0,
          ),
        );
        await terminateConnections();
        statuses.push(...(await Promise.all(requests)));
        expect(studio.child.exitCode, studio.output()).toBeNull();
      }
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      expect((await sendContact(studio.url, 2)).status).toBe(200);
      expect(studio.child.exitCode).toBeNull();
    } finally {
      await studio.stop();
    }
  });

  /** Ends every connection to the database but its own, as a restart or failover would. */
  async function terminateConnections(): Promise<number> {
    const psql = spawn(
      join(bin, 'psql'),
      [
        postgres.url(),
        '-tAc',
        'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity ' +
          'WHERE pid <> pg_backend_pid() AND datname = current_database()',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    psql.stdout.on('data', (chunk) => (out += String(chunk)));
    const code = await new Promise((done) => psql.on('close', done));
    expect(code).toBe(0);
    return Number(out.trim());
  }
});
