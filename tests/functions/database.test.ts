import { readdir } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { applyMigrations } from '@netlify/database-dev';
import { MIGRATIONS } from '../fixtures/databases';
import { useFunctionEnv } from '../fixtures/function-env';

const env = useFunctionEnv();

test("the functions are pointed at the test file's own database", async () => {
  expect(process.env.NETLIFY_DB_URL).toBe(env.url);
  if (env.backend === 'postgres') {
    const { rows } = await env.db.query<{ name: string }>('SELECT current_database() AS name');
    expect(rows[0]!.name).toMatch(/^t_database_[0-9a-f]{8}$/);
    expect(new URL(env.url).pathname).toBe(`/${rows[0]!.name}`);
  }
});

test('every migration is applied once, in name order, and recorded', async () => {
  const files = (await readdir(MIGRATIONS)).filter((name) => name.endsWith('.sql')).sort();
  const { rows } = await env.db.query<{ name: string }>(
    'SELECT name FROM netlify.migrations ORDER BY applied_at, name',
  );
  expect(rows.map((row) => `${row.name}.sql`)).toEqual(files);
  expect(await applyMigrations(env.db, MIGRATIONS)).toEqual([]);
});
