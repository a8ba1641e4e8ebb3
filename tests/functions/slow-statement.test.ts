/** A statement that never finishes (a table held locked): the statement timeout answers the visitor. */
import { Client } from 'pg';
import { expect, test, vi } from 'vitest';
import sendEmail from '../../functions/send-email';
import { useFunctionEnv } from '../fixtures/function-env';
import { jsonPost } from './harness';

const env = useFunctionEnv();

test('a table locked by someone else gets a 503 after the statement timeout, nothing stored, and the next request is answered', async () => {
  // Long enough that the other statements, on a busy machine, never meet it.
  vi.stubEnv('DB_QUERY_TIMEOUT_MS', '5000');
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const holder = new Client({ connectionString: env.url });
  await holder.connect();
  const post = (name: string) =>
    sendEmail(
      jsonPost('http://127.0.0.1:8888/api/send-email', {
        name,
        email: 'ada@example.test',
        message: 'Hello',
        website: '',
        fillTimeMs: 9_000,
      }),
      { ip: '203.0.113.9' },
    );
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE contact_messages IN ACCESS EXCLUSIVE MODE');
    // Only the timeout can answer: the lock is held until after the answer.
    const response = await post('Blocked Visitor');
    expect(response.status).toBe(503);
    await holder.query('ROLLBACK');
    expect((await post('Later Visitor')).status).toBe(200);
    const { rows } = await env.db.query<{ name: string }>('SELECT name FROM contact_messages');
    expect(rows).toEqual([{ name: 'Later Visitor' }]);
  } finally {
    await holder.end();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  }
});
