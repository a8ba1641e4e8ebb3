import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { PAGES, managePath } from '../../src/shared/site-paths';

const root = resolve(import.meta.dirname, '../..');

/** The paths the functions answer, as Netlify reads them: the literal `config.path` of each. */
const functionPaths = new Set(
  readdirSync(resolve(root, 'functions'))
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const source = readFileSync(resolve(root, 'functions', name), 'utf8');
      const literal = /config: Config = \{\s*path: (\[[^\]]*\]|'[^']*')/.exec(source)?.[1] ?? '';
      return [...literal.matchAll(/'([^']+)'/g)].map((match) => match[1]);
    }),
);

const isPage = (path: string) =>
  ['.astro', '/index.astro'].some((end) => existsSync(resolve(root, `src/pages${path}${end}`)));

test.each(Object.entries(PAGES))(
  '%s (%s) is a page of the site or the path of a function',
  (_, path) => {
    expect(isPage(path) || functionPaths.has(path)).toBe(true);
  },
);

test('the manage pages, rendered on demand, carry the token in ?token=', () => {
  expect(isPage(PAGES.manage) && isPage(PAGES.sessionManage)).toBe(true);
  expect(managePath('abc')).toBe('/consultation/manage?token=abc');
});
