/**
 * `npm start` after a mistake in content/: the build stops, and the last good build is served
 * as a deploy keeps the last good site, the log saying what is wrong in her words; with no good
 * build at all, the start fails and says so. Astro here is a stand-in that builds one page from
 * content/ and refuses a price that is not a number, as the build's content check does.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { buildSite } from '../../scripts/server/site-build.ts';

const ASTRO = `
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
const price = /price: (.*)/.exec(readFileSync('content/sessions/private.md', 'utf8'))[1];
if (!/^\\d+$/.test(price)) {
  process.stderr.write('\\u001b[31m[content-check]\\u001b[39m\\n');
  process.stderr.write('content/sessions/private.md, line 3: price: use a number of US dollars, e.g. 120\\n');
  process.exit(1);
}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/index.html', '<p>Private Sessions $' + price + '</p>');
`;

let root: string;
const price = (value: string) =>
  writeFile(
    join(root, 'content', 'sessions', 'private.md'),
    `---\ntitle: Private\nprice: ${value}\n---\n`,
  );
const page = () => readFile(join(root, 'dist', 'index.html'), 'utf8');

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'studio-last-good-'));
  await mkdir(join(root, 'content', 'sessions'), { recursive: true });
  await mkdir(join(root, 'node_modules', 'astro', 'bin'), { recursive: true });
  await writeFile(join(root, 'node_modules', 'astro', 'bin', 'astro.mjs'), ASTRO);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a build that fails', () => {
  test('a mistake in the content keeps the last good build: dist/ as it was, what is wrong in her words, and the content it was built from for the functions', async () => {
    await price('120');
    expect(await buildSite(root, join(root, 'dist')).done).toBe('built');
    expect(await page()).toBe('<p>Private Sessions $120</p>');

    await price('twelve');
    const last = await buildSite(root, join(root, 'dist')).done;
    expect(last).toMatchObject({
      kind: 'last-good',
      problems: [
        'content/sessions/private.md, line 3: price: use a number of US dollars, e.g. 120',
      ],
    });
    expect(typeof last === 'object' && Date.parse(last.builtAt)).toBeGreaterThan(0);
    expect(await page()).toBe('<p>Private Sessions $120</p>');
    const kept = typeof last === 'object' ? last.contentDir : '';
    expect(await readFile(join(kept, 'sessions', 'private.md'), 'utf8')).toContain('price: 120');

    // Fixed: built again, and that build is the good one from then on.
    await price('125');
    expect(await buildSite(root, join(root, 'dist')).done).toBe('built');
    expect(await page()).toBe('<p>Private Sessions $125</p>');
  });

  test('with no good build to serve, the start fails and says so, with what is wrong', async () => {
    await price('twelve');
    await expect(buildSite(root, join(root, 'dist')).done).rejects.toThrow(
      'the site could not be built, and there is no good build to serve:\ncontent/sessions/private.md, line 3: price: use a number of US dollars, e.g. 120',
    );
  });
});
