/**
 * Proof that the `functions:serverless` project runs the functions the way Netlify does: through
 * `@neondatabase/serverless` and a WebSocket, not through `pg` straight to the server.
 */
import { expect, test } from 'vitest';
import { getDatabase } from '@netlify/database';
import { neonConfig } from '@neondatabase/serverless';
import sendEmail from '../../functions/send-email';
import { closeDatabase } from '../../src/server/platform/db';
import { useFunctionEnv } from '../fixtures/function-env';
import { currentWsProxy } from '../fixtures/ws-proxy';

const env = useFunctionEnv();

function contactPost(n: number): Request {
  const url = 'http://127.0.0.1:8888/api/send-email';
  return new Request(url, {
    method: 'POST',
    headers: { origin: new URL(url).origin, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `Driver Check ${n}`,
      email: `driver${n}@example.test`,
      service: '',
      message: 'Checking the road to the database.',
      website: '',
      fillTimeMs: 20_000,
    }),
  });
}

test("getDatabase() picks Neon's serverless driver, as Netlify's runtime makes it", async () => {
  const database = getDatabase();
  expect(database.driver).toBe('serverless');
  await (database.pool as { end(): Promise<void> }).end();
});

test('a contact message reaches the database through the WebSocket proxy', async () => {
  const proxy = currentWsProxy();
  expect(proxy).toBeDefined();
  const before = proxy!.connections;
  const answer = await sendEmail(contactPost(1), { ip: '198.51.100.20' } as never);
  expect(answer.status).toBe(200);
  expect(await env.count('contact_messages')).toBe(1);
  expect(proxy!.connections).toBeGreaterThan(before);
  await env.smtp.waitForMails(1);
});

test('with the WebSocket proxy out of reach the same function cannot store anything (503)', async () => {
  const { wsProxy } = neonConfig;
  const proxy = currentWsProxy()!;
  const before = proxy.connections;
  await closeDatabase();
  // Nothing listens on port 9: every WebSocket the driver opens is refused.
  neonConfig.wsProxy = (host, port) => `127.0.0.1:9/v2?address=${host}:${port}`;
  try {
    const answer = await sendEmail(contactPost(2), { ip: '198.51.100.21' } as never);
    expect(answer.status).toBe(503);
  } finally {
    await closeDatabase();
    neonConfig.wsProxy = wsProxy;
  }
  expect(proxy.connections).toBe(before);
  expect(await env.count('contact_messages')).toBe(0);
  expect(env.smtp.mails).toHaveLength(0);
});
