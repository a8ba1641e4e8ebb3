/**
 * The content editor's local backend (scripts/server/editor.ts), served by a real HTTP server over
 * a copy of the project: it writes only content/ of that copy, only for the editor's own page on
 * this machine, and a save the build would refuse is refused in her words, the file unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createEditorBackend, EDITOR_API } from '../../scripts/server/editor';
import { copyProject, type ProjectCopy } from '../fixtures/project-copy';

let copy: ProjectCopy;
let server: Server;
let site: string;
const saved: string[][] = [];

beforeAll(async () => {
  copy = await copyProject('editor-backend-');
  const editor = createEditorBackend({ root: copy.dir, saved: (files) => saved.push(files) });
  server = createServer((req, res) => void editor.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await copy?.dispose();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${site}${EDITOR_API}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: site, ...headers },
    body: JSON.stringify(body),
  });

const persist = (path: string, raw: string) =>
  post({ action: 'persistEntry', params: { entry: { path, raw }, assets: [] } });

describe('the local editor writes only content/, for its own page', () => {
  test('it reads a file of content/ as Decap asks', async () => {
    const answer = await post({
      action: 'getEntry',
      params: { path: 'content/sessions/private.md' },
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: string }).data).toContain('price: 120');
  });

  test.each([
    ['content/../package.json'],
    ['content/sessions/../../package.json'],
    ['/etc/passwd'],
    ['package.json'],
    ['src/pages/index.md'],
    ['content/sessions/private.js'],
  ])('a path out of content/ (%s) is refused and nothing is written', async (path) => {
    const answer = await persist(path, 'changed');
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: string }).error).toMatch(/content\/|not a page/);
  });

  test('reading a file out of content/ is refused too', async () => {
    const answer = await post({ action: 'getEntry', params: { path: 'content/../.env' } });
    expect(answer.status).toBe(403);
  });

  test('a post from another site, or with no Origin, is refused', async () => {
    const raw = (await copy.read('content/sessions/private.md')).replace('price: 120', 'price: 99');
    const other = await post(
      {
        action: 'persistEntry',
        params: { entry: { path: 'content/sessions/private.md', raw }, assets: [] },
      },
      { origin: 'https://evil.example' },
    );
    expect(other.status).toBe(403);
    const host = await post(
      { action: 'info' },
      { host: 'evil.example', origin: 'http://evil.example' },
    );
    expect(host.status).toBe(403);
    const none = await post({ action: 'info' }, { origin: '' });
    expect(none.status).toBe(403);
    expect(await copy.read('content/sessions/private.md')).toContain('price: 120');
  });

  // The first save loads the build's content check.
  test(
    'a save the build would refuse is answered in her words and changes nothing',
    { timeout: 60_000 },
    async () => {
      const before = await copy.read('content/sessions/private.md');
      const answer = await persist(
        'content/sessions/private.md',
        before.replace('price: 120', 'price: cheap'),
      );
      expect(answer.status).toBe(422);
      expect(((await answer.json()) as { error: string }).error).toBe(
        'content/sessions/private.md, line 3: price: use a number of US dollars, e.g. 120',
      );
      expect(await copy.read('content/sessions/private.md')).toBe(before);
    },
  );

  test('a right save is written, and the site told to rebuild', async () => {
    const before = await copy.read('content/sessions/private.md');
    const answer = await persist(
      'content/sessions/private.md',
      before.replace('price: 120', 'price: 125'),
    );
    expect(answer.status).toBe(200);
    expect(await copy.read('content/sessions/private.md')).toContain('price: 125');
    expect(saved.at(-1)).toEqual(['content/sessions/private.md']);
  });

  test("a picture lands beside the program, where the build's image pipeline reads it", async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
    const answer = await post({
      action: 'persistMedia',
      params: { asset: { path: 'content/programs/studio.png', content: png, encoding: 'base64' } },
    });
    expect(answer.status).toBe(200);
    const script = await post({
      action: 'persistMedia',
      params: { asset: { path: 'content/programs/x.svg', content: png, encoding: 'base64' } },
    });
    expect(script.status).toBe(403);
  });
});
