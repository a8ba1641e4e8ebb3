/**
 * A pooled connection the database ended (a restart, a failover, an administrator) before the
 * pool heard of it: the pool hands it to the next request, whose first statement is answered by
 * the server's "terminating connection" instead of a result. Nothing of that request reached the
 * database, so src/server/platform/db.ts runs it again on a fresh connection: the visitor's
 * message is stored once, and nobody sees a 503 for a connection that was already gone.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import sendEmail from '../../functions/send-email';
import { ensurePostgres } from '../../scripts/postgres.ts';
import { closeDatabase } from '../../src/server/platform/db';
import { useFunctionEnv } from '../fixtures/function-env';
import { contactBody } from '../fixtures/submissions';
import { jsonPost } from './harness';

const env = useFunctionEnv();
const APP = 'dead-connection-functions';

beforeAll(async () => {
  // The functions' connections carry a name of their own, so that only they are ended.
  const url = new URL(env.url);
  url.searchParams.set('application_name', APP);
  await closeDatabase();
  vi.stubEnv('NETLIFY_DB_URL', url.toString());
  vi.stubEnv('CONTACT_RATE_LIMIT', '1000/1m');
});

afterAll(async () => {
  await closeDatabase();
  vi.unstubAllEnvs();
});

const post = (n: number) =>
  sendEmail(
    jsonPost('http://127.0.0.1:8888/api/send-email', contactBody({ name: `Visitor ${n}` })),
    {
      ip: `203.0.113.${n}`,
    },
  );

/**
 * Ends the functions' connections from another process. `spawnSync` holds this process still
 * meanwhile, so the pool cannot hear of it before the next request takes the dead connection.
 */
function endFunctionConnections(): number {
  const psql = spawnSync(
    join(ensurePostgres().bin, 'psql'),
    [
      env.url,
      '-tAc',
      `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '${APP}'`,
    ],
    { encoding: 'utf8' },
  );
  expect(psql.status, psql.stderr).toBe(0);
  return Number(psql.stdout.trim());
}

test('a request handed a connection the database has ended is stored on a fresh one, once', async () => {
  expect((await post(1)).status).toBe(200);
  expect(endFunctionConnections()).toBeGreaterThan(0);

  const response = await post(2);
  expect(response.status).toBe(200);
  const { rows } = await env.db.query<{ name: string }>(
    'SELECT name FROM contact_messages ORDER BY id',
  );
  expect(rows).toEqual([{ name: 'Visitor 1' }, { name: 'Visitor 2' }]);
});
