/**
 * Every field of every content file, given a value of the wrong kind or left out, stops the
 * build with one line in the instructor's words: the file, the field, and what to write with an
 * example; never zod's or Astro's own words. (content-schema.test.ts runs the build itself on a
 * few of these; this goes through every field, with the check the build runs first.)
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parseDocument } from 'yaml';
import { contentProblems } from '../../src/integrations/content-check';
import { PROJECT_ROOT } from '../fixtures/project-copy';

// One file of each kind; the events are the samples, published under their name without `_`.
const FILES = [
  'content/site.yaml',
  'content/consultation.yaml',
  'content/classes.yaml',
  'content/booking.yaml',
  'content/retention.yaml',
  'content/sessions/small-group.md',
  'content/sessions/private.md',
  'content/sessions/in-home.md',
  'content/services/virtual.md',
  'content/programs/prenatal.md',
  'content/testimonials/sarah.md',
  'content/events/_park-mat-class.md',
  'content/events/_online-posture-reset.md',
  'content/home.md',
  'content/about.md',
  'content/contact.md',
  'content/events.md',
  'content/services.md',
  'content/consultation.md',
  'content/waiver.md',
];

const root = mkdtempSync(join(tmpdir(), 'content-messages-'));
cpSync(join(PROJECT_ROOT, 'content'), join(root, 'content'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Path = (string | number)[];

/** Every field's path in `value`, the fields inside lists and blocks included. */
function paths(value: unknown, prefix: Path = []): Path[] {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    return [path, ...paths(inner, path)];
  });
}

/** What the build says with the field at `path` of `file` set to `value` (left out: undefined). */
function problemsWith(file: string, path: Path, value: unknown): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const yaml = file.endsWith('.md') ? /^---\n([\s\S]*?\n)---/.exec(text)![1]! : text;
  const doc = parseDocument(yaml);
  if (value === undefined) doc.deleteIn(path);
  else doc.setIn(path, value);
  const published = join(root, file.replace('/_', '/'));
  writeFileSync(
    published,
    file.endsWith('.md') ? text.replace(yaml, doc.toString()) : doc.toString(),
  );
  try {
    return contentProblems(root);
  } finally {
    if (published === join(root, file)) writeFileSync(published, text);
    else rmSync(published);
  }
}

const field = (path: Path) => String([...path].reverse().find((part) => typeof part === 'string'));

test('the files as they are read without a mistake', () => {
  expect(contentProblems(root)).toEqual([]);
});

describe.each(FILES)('%s', (file) => {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const yaml = file.endsWith('.md') ? /^---\n([\s\S]*?\n)---/.exec(text)![1]! : text;
  const data: unknown = parseDocument(yaml).toJS();
  const cases = paths(data);
  const isBlock = (path: Path) => {
    const value: unknown = path.reduce<unknown>(
      (inner, key) => (inner as Record<string | number, unknown>)[key],
      data,
    );
    return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
  };

  test.each(cases.map((path) => [path.join('.'), path] as const))(
    '%s: a value of the wrong kind, and left out',
    (_, path) => {
      const name = file.replace('/_', '/');
      const wrong = problemsWith(file, path, { what: 'a block where a value goes' });
      expect(wrong, 'a wrong value must stop the build').not.toEqual([]);
      for (const problem of [...wrong, ...problemsWith(file, path, undefined)]) {
        expect(problem).toMatch(new RegExp(`^${name.replaceAll('.', '\\.')}(, line \\d+)?: `));
        expect(problem).toMatch(/e\.g\.|use |with the lines /);
        expect(problem).not.toMatch(/Invalid|expected|received|\[object|undefined|NaN/);
      }
      // A block given other lines (or a field that may be one, such as an event's place) is
      // told about those lines, each on its own.
      const inside = wrong.every((problem) => /: (is not a line of|missing: )/.test(problem));
      if (!isBlock(path) && !inside) expect(wrong.join('\n')).toContain(`${field(path)}: `);
    },
  );
});
