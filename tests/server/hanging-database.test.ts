/**
 * A database that hangs: a TCP listener that accepts every connection and never answers, as
 * NETLIFY_DB_URL. The server itself must not hang (its own connections have timeouts; static
 * pages are still served) and a visitor must get a JSON answer within seconds, never a stack
 * trace.
 *
 * The visitor's answer within a few seconds comes from the functions' own database code
 * (src/server/platform/db.ts bounds the wait for a connection and for a statement, since
 * `getDatabase()` takes no pool options); the server's own limit (FUNCTION_TIMEOUT_MS) is the
 * safety net the second probe checks.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  contactMessage,
  ensureBuilt,
  postJson,
  startHangingDatabase,
  startStudio,
  type HangingDatabase,
  type Studio,
} from './harness.ts';

let hanging: HangingDatabase | undefined;
let databaseUrl: string;

beforeAll(async () => {
  ensureBuilt();
  hanging = await startHangingDatabase();
  databaseUrl = hanging.url;
});
afterAll(async () => {
  await hanging?.close();
});

async function timedPost(studio: Studio) {
  const started = performance.now();
  const response = await postJson(studio.url, '/api/send-email', contactMessage(7));
  const text = await response.text();
  return { response, text, ms: performance.now() - started };
}

describe('a database that accepts connections and never answers', () => {
  let studio: Studio;
  beforeAll(async () => {
    // The server's own limit is set high here, so that only the functions' timeouts could answer.
    studio = await startStudio({
      env: { NETLIFY_DB_URL: databaseUrl, FUNCTION_TIMEOUT_MS: '20000' },
    });
  });
  afterAll(async () => {
    await studio?.stop();
  });

  test('the server starts anyway, says so, and keeps serving pages', async () => {
    expect(studio.output()).toMatch(/cannot be reached/);
    const started = performance.now();
    const page = await fetch(`${studio.url}/about`);
    expect(page.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test('a visitor gets a JSON 503 within a few seconds, never a stack trace', async () => {
    const started = performance.now();
    const response = await fetch(`${studio.url}/api/send-email`, {
      method: 'POST',
      headers: { origin: studio.url, 'content-type': 'application/json' },
      body: JSON.stringify(contactMessage(8)),
      signal: AbortSignal.timeout(8_000),
    });
    const text = await response.text();
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(text).not.toMatch(/\bat \S+:\d+|Error:/);
  });
});

describe('the server’s own limit', () => {
  test('with FUNCTION_TIMEOUT_MS=3000 the visitor gets a JSON 504 in about 3 s', async () => {
    const studio = await startStudio({
      env: { NETLIFY_DB_URL: databaseUrl, FUNCTION_TIMEOUT_MS: '3000' },
    });
    try {
      const { response, text, ms } = await timedPost(studio);
      expect(response.status).toBe(504);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(text)).toMatchObject({ success: false });
      expect(text).not.toMatch(/\bat \S+:\d+|Error:/);
      expect(ms).toBeGreaterThan(2_500);
      expect(ms).toBeLessThan(6_000);
    } finally {
      await studio.stop();
    }
  });
});
