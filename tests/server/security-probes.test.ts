/**
 * Black-box probes of the real `npm start` (the built site and its functions, in a child process),
 * tried as an attacker would: path tricks that would lead a browser off the site or reach a file
 * that is never served, a forged Host header, a stranger trying to keep the instructor out of
 * the desk, and the waiver form used to mail strangers. Mail lands in the server's outbox folder
 * (no SMTP_URL) and is read back from there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt, rawExchange, startStudio, type Studio } from './harness.ts';

let studio: Studio;
let outbox: string;

beforeAll(async () => {
  ensureBuilt();
  outbox = await mkdtemp(join(tmpdir(), 'studio-probe-outbox-'));
  studio = await startStudio({ env: { MAIL_OUTBOX_DIR: outbox } });
});
afterAll(async () => {
  await studio?.stop();
  await rm(outbox, { recursive: true, force: true });
});

/** A raw GET, exactly as written (no client normalises the path first). */
async function rawGet(path: string, headers = '') {
  const { text } = await rawExchange(
    studio.port,
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${studio.port}\r\n${headers}Connection: close\r\n\r\n`,
  );
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const location = /\r\nlocation: ([^\r]*)/i.exec(head)?.[1];
  return { status, location, head, body: rest.join('\r\n\r\n') };
}

describe('path tricks', () => {
  test('GET //evil.example/..%2fabout/ is a 404, never a redirect off the site', async () => {
    for (const path of [
      '//evil.example/..%2fabout/',
      '//evil.example/..%2fabout',
      '/%2fevil.example/..%2fabout/',
      '/%5cevil.example/..%2fabout/',
      '//evil.example/%2e%2e%2fabout/',
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.location, path).toBeUndefined();
    }
  });

  test('every redirect the static files answer points at a path on the site itself', async () => {
    for (const path of ['/about/', '/contact/', '/events/', '/about/?a=1']) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(301);
      expect(answer.location, path).toMatch(/^\/[^/\\]/);
    }
  });

  test('_headers and _redirects are never served, however the path is written', async () => {
    for (const path of [
      '/_headers',
      '//_headers',
      '/.%2f_headers',
      '/%2f_headers',
      '/./_headers',
      '/%2e/_headers',
      '/x/../_headers',
      '/_HEADERS',
      '//_redirects',
      '/_headers/',
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('Strict-Transport-Security:');
    }
  });

  test("the desk's pages, however their path is written, are noindex and no-store or not found", async () => {
    for (const path of ['/records', '/r%65cords', '/records/sign-in', '/records/sign%2Din']) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(200);
      expect(answer.head, path).toMatch(/\r\nx-robots-tag: noindex, nofollow/i);
      expect(answer.head, path).toMatch(/\r\ncache-control: no-store/i);
    }
    for (const path of ['//records', '//records/sign-in', '/.%2frecords', '/records//sign-in']) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('Records desk');
    }
  });
});
