import { afterAll, beforeAll, expect, test } from 'vitest';
import { getDatabase } from '@netlify/database';
import { startSessionLock, type SessionLock } from '../../scripts/db-session-lock.ts';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../scripts/embedded-db.ts';

interface Client {
  query<T = unknown>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  release(): void;
}
interface Pool {
  connect(): Promise<Client>;
  query<T = unknown>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  end(): Promise<void>;
}

let db: EmbeddedDatabase;
let lock: SessionLock;
let pool: Pool;

beforeAll(async () => {
  db = await startEmbeddedDatabase();
  await db.db.exec('CREATE TABLE t (n int)');
  lock = await startSessionLock(db.url);
  pool = getDatabase({ connectionString: lock.url }).pool as unknown as Pool;
});

afterAll(async () => {
  await pool?.end();
  await lock?.close();
  await db?.stop();
});

test("one connection's rollback no longer takes another connection's insert with it", async () => {
  const a = await pool.connect();
  const b = await pool.connect();
  try {
    await a.query('BEGIN');
    await a.query('INSERT INTO t VALUES (1)');
    // B waits for A's transaction to end instead of joining it.
    const insert = b.query('INSERT INTO t VALUES (2)');
    await a.query('ROLLBACK');
    await insert;
    const { rows } = await b.query<{ n: number }>('SELECT n FROM t');
    expect(rows).toEqual([{ n: 2 }]);
  } finally {
    a.release();
    b.release();
    await db.db.exec('DELETE FROM t');
  }
});

test('forty concurrent connections with parameterised transactions all finish, none lost', async () => {
  await Promise.all(
    Array.from({ length: 40 }, async (_, n) => {
      const own = getDatabase({ connectionString: lock.url }).pool as unknown as Pool;
      const client = await own.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO t VALUES ($1)', [n]);
        await client.query('INSERT INTO t VALUES ($1)', [n + 100]);
        await client.query(n % 5 === 0 ? 'ROLLBACK' : 'COMMIT');
      } finally {
        client.release();
        await own.end();
      }
    }),
  );
  const { rows } = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM t');
  expect(rows[0].count).toBe(64);
});
