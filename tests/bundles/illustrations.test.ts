/**
 * An illustration (an SVG in content/) is drawn in the page itself, named for a screen reader:
 * no page asks for one as an image, so none waits for a request or competes with the first paint.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { escapeHtml } from '../../src/shared/html';
import { ensureBuilt } from '../server/harness';

const DIST = resolve(import.meta.dirname, '../../dist');
let pages: { name: string; html: string }[];

beforeAll(async () => {
  ensureBuilt();
  const files = (await readdir(DIST, { recursive: true })).filter((file) => file.endsWith('.html'));
  pages = await Promise.all(
    files.map(async (name) => ({ name, html: await readFile(join(DIST, name), 'utf8') })),
  );
});

test('no built page loads an SVG illustration as an image', () => {
  for (const { name, html } of pages) {
    expect(html.match(/<img\b[^>]*\.svg\b[^>]*>/g) ?? [], name).toEqual([]);
  }
});

test('the Services cards draw theirs in the page, each named by its imageAlt', async () => {
  const programs = resolve(import.meta.dirname, '../../content/programs');
  const alts = await Promise.all(
    (await readdir(programs))
      .filter((file) => file.endsWith('.md') && !file.startsWith('_'))
      .map(
        async (file) => /^imageAlt: (.+)$/m.exec(await readFile(join(programs, file), 'utf8'))![1],
      ),
  );
  const services = pages.find((each) => each.name === 'services.html')!.html;
  const drawn = [...services.matchAll(/<svg role="img" aria-label="([^"]+)"/g)].map(
    ([, label]) => label,
  );
  expect(drawn.sort()).toEqual(alts.map((alt) => escapeHtml(alt!)).sort());
});
