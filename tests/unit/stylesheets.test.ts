import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { compile } from '@tailwindcss/node';
import { Scanner, type SourceEntry } from '@tailwindcss/oxide';
import { describe, expect, test } from 'vitest';

/**
 * Tailwind makes a stylesheet from the class names it finds in its source files, and by default
 * every file of the project is a source. The records desk must cost the public pages nothing, so
 * the public stylesheet (global.css) must be made exactly as if the desk's files did not exist,
 * and the desk's stylesheet (records.css) from the desk's files alone. These tests build both
 * the way @tailwindcss/vite does (its compile step, then its scanner over the same sources).
 */
const ROOT = resolve(import.meta.dirname, '../..');

/** Everything written for the desk (relative to the project root). */
const DESK_FILES = [
  'src/islands/records/**',
  'src/pages/records/**',
  'src/layouts/DeskLayout.astro',
  'src/shared/desk-api.ts',
  'src/server/records/**',
  'src/server/auth/**',
  'functions/desk.ts',
  'tests/**/records*',
  'tests/functions/desk.ts',
];
const isDeskFile = (file: string) =>
  /^(src\/islands\/records\/|src\/pages\/records\/|src\/layouts\/DeskLayout\.astro$|src\/shared\/desk-api\.ts$|src\/server\/(records|auth)\/|functions\/desk\.ts$|tests\/.*records|tests\/functions\/desk\.ts$)/.test(
    file,
  );

async function stylesheet(
  file: string,
  { css, without = [] }: { css?: string; without?: string[] } = {},
) {
  const path = resolve(ROOT, file);
  const compiler = await compile(css ?? (await readFile(path, 'utf8')), {
    base: dirname(path),
    onDependency: () => undefined,
  });
  const root: SourceEntry[] =
    compiler.root === 'none'
      ? []
      : compiler.root === null
        ? [{ base: ROOT, pattern: '**/*', negated: false }]
        : [{ ...compiler.root, negated: false }];
  const scanner = new Scanner({
    sources: [
      ...root,
      ...compiler.sources,
      ...without.map((pattern) => ({ base: ROOT, pattern, negated: true })),
    ],
  });
  const candidates = scanner.scan();
  return {
    files: scanner.files.map((scanned) => relative(ROOT, scanned)),
    css: compiler.build(candidates),
  };
}

describe('stylesheets', () => {
  test('no file written for the records desk is a source of the public stylesheet', async () => {
    const { files } = await stylesheet('src/styles/global.css');
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter(isDeskFile)).toEqual([]);
  });

  test('the public stylesheet is byte for byte what it would be without the desk', async () => {
    const built = await stylesheet('src/styles/global.css');
    const withoutDesk = await stylesheet('src/styles/global.css', { without: DESK_FILES });
    expect(built.css).toBe(withoutDesk.css);
    // The exclusions matter: without them the desk's class names would grow the public sheet.
    const source = await readFile(resolve(ROOT, 'src/styles/global.css'), 'utf8');
    const careless = await stylesheet('src/styles/global.css', {
      css: source.replace(/^@source not .*$/gm, ''),
    });
    expect(careless.css.length).toBeGreaterThan(built.css.length);
  });

  test("the desk's stylesheet is made from the desk's own files (and the islands' error boundary)", async () => {
    const { files, css } = await stylesheet('src/styles/records.css');
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      expect(isDeskFile(file) || file === 'src/islands/ErrorBoundary.tsx', file).toBe(true);
    }
    expect(css).toContain('--color-sage-700');
  });
});
