/**
 * A database that accepts connections and never answers (not one that refuses them): the visitor
 * still gets an answer once the connect timeout fires, in kind, and never a stack trace.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import sendEmail from '../../functions/send-email';
import { closeDatabase } from '../../src/server/platform/db';
import { jsonPost, refusalPage } from './harness';

let server: Server;
const sockets: Socket[] = [];
let url: string;

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `postgres://postgres@127.0.0.1:${(server.address() as { port: number }).port}/postgres`;
  vi.stubEnv('NETLIFY_DB_URL', url);
  vi.stubEnv('DB_CONNECT_TIMEOUT_MS', '1500');
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

afterAll(async () => {
  // The connections still waiting on the silent database end first, then the pool can close.
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => server.close(done));
  await closeDatabase();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const valid = {
  name: 'Ada Lovelace',
  email: 'ada@example.test',
  service: '',
  message: 'Hello',
  website: '',
  fillTimeMs: 9_000,
};

test('a JSON post gets a JSON 503 once the connect timeout fires', async () => {
  const response = await sendEmail(jsonPost('http://127.0.0.1:8888/api/send-email', valid), {
    ip: '203.0.113.1',
  });
  // Only the timeout can answer: the database accepts the connection and never says a word.
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('30');
  expect(await response.json()).toEqual({
    success: false,
    error: 'Your message could not be saved just now. Please try again shortly.',
  });
});

test('a plain form post gets the page that says so, from the same timeout', async () => {
  const response = await sendEmail(
    new Request('http://127.0.0.1:8888/api/send-email', {
      method: 'POST',
      headers: {
        origin: 'http://127.0.0.1:8888',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ ...valid, fillTimeMs: '9000' }).toString(),
    }),
    { ip: '203.0.113.2' },
  );
  // Sent on to the page that says why (/refused), which answers with the refusal's status.
  const page = await refusalPage(response);
  expect(page.status).toBe(503);
  const html = await page.text();
  expect(html).toContain('Error sending message');
  expect(html).not.toMatch(/\bat \w+ \(|node:internal|ETIMEDOUT/);
});
