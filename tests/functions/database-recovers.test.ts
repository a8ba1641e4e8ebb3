/**
 * A database that stops answering for a while (frozen, not down), then answers again: visitors
 * get a 503 from the database timeouts meanwhile, and the forms work again as soon as it is back
 * (the next post is stored, not handed a connection still waiting on the frozen one), however
 * many connections were left waiting on it.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import sendEmail from '../../functions/send-email';
import { useFunctionEnv } from '../fixtures/function-env';
import { contactBody } from '../fixtures/submissions';
import { jsonPost } from './harness';

const env = useFunctionEnv();

/** Between the functions and the database: passes bytes on, or (frozen) takes them and says nothing. */
let proxy: Server;
let frozen = false;
/** Every connection made through it, closed at the end. */
const held: Socket[] = [];

beforeAll(async () => {
  const target = new URL(env.url);
  proxy = createServer((client) => {
    held.push(client);
    client.on('error', () => undefined);
    if (frozen) return;
    const server = connect(Number(target.port), target.hostname);
    server.on('error', () => client.destroy());
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    // Frozen, the open connections go silent too: what is sent is taken and never answered.
    client.on('data', (bytes) => frozen || server.write(bytes));
    server.on('data', (bytes) => frozen || client.write(bytes));
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  const through = new URL(env.url);
  through.hostname = '127.0.0.1';
  through.port = String((proxy.address() as { port: number }).port);
  vi.stubEnv('NETLIFY_DB_URL', through.toString());
  // Long enough that a post on a busy machine never meets them while the database answers.
  vi.stubEnv('DB_CONNECT_TIMEOUT_MS', '5000');
  vi.stubEnv('DB_QUERY_TIMEOUT_MS', '5000');
  vi.stubEnv('CONTACT_RATE_LIMIT', '1000/1m');
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((done) => proxy.close(done));
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const post = (n: number) =>
  sendEmail(
    jsonPost('http://127.0.0.1:8888/api/send-email', contactBody({ name: `Visitor ${n}` })),
    {
      ip: `203.0.113.${n}`,
    },
  );

test('frozen: every post gets a 503 from the timeouts; back: the next post is stored', async () => {
  expect((await post(1)).status).toBe(200);

  frozen = true;
  const during = await Promise.all(Array.from({ length: 12 }, (_, n) => post(n + 10)));
  expect(during.map((response) => response.status)).toEqual(Array(12).fill(503));

  frozen = false;
  // A connection left waiting on the frozen database would time out again: 503, not 200.
  expect((await post(2)).status).toBe(200);
  const { rows } = await env.db.query<{ name: string }>(
    'SELECT name FROM contact_messages ORDER BY id',
  );
  expect(rows).toEqual([{ name: 'Visitor 1' }, { name: 'Visitor 2' }]);
});
