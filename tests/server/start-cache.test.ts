/**
 * What `npm start` redoes at a restart: the functions are compiled again only when a file they
 * are compiled from changed (and Netlify's bundler reads their configs again only when the
 * functions folder did); the site is built again only when what it is built from changed, a
 * setting the build reads included, and not for a setting only the server reads.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { prepareFunctions, type Bundle } from '../../scripts/server/bundles.ts';
import { readSiteConfig } from '../../scripts/server/netlify-config.ts';
import { buildKey } from '../../scripts/server/site-build.ts';
import { fixtureProject } from './harness.ts';

async function answerOf(bundle: Bundle): Promise<string> {
  const module = (await import(pathToFileURL(bundle.file).href)) as {
    default: (request: Request) => Promise<Response>;
  };
  return (await module.default(new Request('http://127.0.0.1/hello'))).text();
}

describe('the functions', () => {
  let project: Awaited<ReturnType<typeof fixtureProject>>;
  beforeAll(async () => {
    project = await fixtureProject();
    await mkdir(join(project.root, 'shared'));
    await writeFile(join(project.root, 'shared', 'greeting.mjs'), "export const hello = 'one';\n");
    await writeFile(
      join(project.root, 'functions', 'hello.mjs'),
      "import { hello } from '../shared/greeting.mjs';\n" +
        "export const config = { path: '/hello' };\n" +
        'export default async () => new Response(hello);\n',
    );
  });
  afterAll(async () => {
    await project?.remove();
  });

  test('are compiled at the first start, reused at the next, compiled again after an edit', async () => {
    const site = await readSiteConfig(project.root);
    const first = await prepareFunctions(site);
    expect(first.work).toEqual(['listed', 'compiled']);
    expect(first.bundles.map((b) => b.name)).toEqual(['echo', 'hello', 'plain', 'tick']);
    const hello = first.bundles.find((b) => b.name === 'hello')!;
    expect(hello.routes.map((r) => r.pattern)).toEqual(['/hello']);
    expect(await answerOf(hello)).toBe('one');

    const again = await prepareFunctions(site);
    expect(again.work).toEqual([]);
    expect(again.bundles).toEqual(first.bundles);

    // A module a function imports, outside the functions folder: compiled again, not listed.
    await writeFile(join(project.root, 'shared', 'greeting.mjs'), "export const hello = 'two';\n");
    const edited = await prepareFunctions(site);
    expect(edited.work).toEqual(['compiled']);
    expect(await answerOf(edited.bundles.find((b) => b.name === 'hello')!)).toBe('two');

    // A function's own file: its config is read again.
    await writeFile(
      join(project.root, 'functions', 'hello.mjs'),
      "export const config = { path: '/hi' };\nexport default async () => new Response('hi');\n",
    );
    const moved = await prepareFunctions(site);
    expect(moved.work).toEqual(['listed', 'compiled']);
    expect(moved.bundles.find((b) => b.name === 'hello')!.routes.map((r) => r.pattern)).toEqual([
      '/hi',
    ]);
  }, 300_000);
});

describe("the site's build", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'studio-build-key-'));
    await mkdir(join(root, 'content', 'sessions'), { recursive: true });
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'content', 'sessions', 'private.md'), 'price: 120\n');
    await writeFile(join(root, 'src', 'page.astro'), '<p>Hello</p>\n');
    await writeFile(join(root, 'astro.config.mjs'), 'export default {};\n');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('is kept while its files and the settings it reads are unchanged', async () => {
    const env = { SITE_URL: 'https://studio.example', SMTP_URL: 'smtp://a.example' };
    const key = await buildKey(root, env);
    expect(await buildKey(root, { ...env })).toBe(key);
    // The server's own settings are not the build's.
    expect(await buildKey(root, { ...env, SMTP_URL: 'smtp://b.example', PATH: '/x' })).toBe(key);
    expect(await buildKey(root, { ...env, SITE_URL: 'https://other.example' })).not.toBe(key);
    expect(await buildKey(root, { ...env, BUILD_NOW: '2026-06-01T12:00:00Z' })).not.toBe(key);

    await writeFile(join(root, 'content', 'sessions', 'private.md'), 'price: 125\n');
    const edited = await buildKey(root, env);
    expect(edited).not.toBe(key);
    await writeFile(join(root, 'content', 'sessions', 'private.md'), 'price: 120\n');
    expect(await buildKey(root, env)).toBe(key);
    await writeFile(join(root, 'public-note.txt'), 'not an input\n');
    expect(await buildKey(root, env)).toBe(key);
  });
});
