/**
 * A database that hangs: a TCP listener that accepts every connection and never answers, as
 * NETLIFY_DB_URL. The server itself must not hang (its own connections have timeouts; static
 * pages are still served) and a visitor must get a JSON answer, never a stack trace, from
 * whichever timeout fires first.
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

async function post(studio: Studio) {
  const response = await postJson(studio.url, '/api/send-email', contactMessage(7));
  return { response, text: await response.text() };
}

describe('a database that accepts connections and never answers', () => {
  let studio: Studio;
  beforeAll(async () => {
    // The server's own limit is set high here, so that only the functions' timeouts could answer.
    studio = await startStudio({
      env: { NETLIFY_DB_URL: databaseUrl, FUNCTION_TIMEOUT_MS: '60000' },
    });
  });
  afterAll(async () => {
    await studio?.stop();
  });

  test('the server starts anyway, says so, and keeps serving pages', async () => {
    await studio.said(/cannot be reached/);
    const page = await fetch(`${studio.url}/about`);
    expect(page.status).toBe(200);
  });

  test('a visitor gets a JSON 503 from the database timeout, never a stack trace', async () => {
    const response = await fetch(`${studio.url}/api/send-email`, {
      method: 'POST',
      headers: { origin: studio.url, 'content-type': 'application/json' },
      body: JSON.stringify(contactMessage(8)),
    });
    const text = await response.text();
    // 503, not the server's 504: the functions' own database timeout answered (DB_CONNECT_TIMEOUT_MS,
    // 5 s, against FUNCTION_TIMEOUT_MS, 60 s here).
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(text).not.toMatch(/\bat \S+:\d+|Error:/);
  });
});

describe('the server’s own limit', () => {
  test('with FUNCTION_TIMEOUT_MS=3000 under a longer database timeout, the visitor gets a JSON 504 from it', async () => {
    // The functions' own timeouts are set longer, so that only the server's limit could answer.
    const studio = await startStudio({
      env: {
        NETLIFY_DB_URL: databaseUrl,
        FUNCTION_TIMEOUT_MS: '3000',
        DB_CONNECT_TIMEOUT_MS: '60000',
        DB_QUERY_TIMEOUT_MS: '60000',
      },
    });
    try {
      const { response, text } = await post(studio);
      expect(response.status).toBe(504);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(text)).toMatchObject({ success: false });
      expect(text).not.toMatch(/\bat \S+:\d+|Error:/);
      await studio.said('send-email: no answer within 3000 ms');
    } finally {
      await studio.stop();
    }
  });
});
