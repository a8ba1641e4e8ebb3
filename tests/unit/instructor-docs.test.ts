/**
 * docs/instructor.md and docs/desk.md say what the build does with her edits: the words they
 * quote are the ones the build prints, the slips they say are taken as meant are, and publishing
 * a waiver version asks for the lines they name and nothing else.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { contentProblems } from '../../src/integrations/content-check';
import { clockOf, dollarsOf, weekdayOf } from '../../src/shared/content-fields';
import { waiverFrontmatterSchema } from '../../src/shared/waiver-versions';
import { PROJECT_ROOT } from '../fixtures/project-copy';

const guide = readFileSync(join(PROJECT_ROOT, 'docs/instructor.md'), 'utf8');
const desk = readFileSync(join(PROJECT_ROOT, 'docs/desk.md'), 'utf8');
const section = (title: string) =>
  [guide, desk].flatMap((page) => page.split(/\n#+ /)).find((part) => part.startsWith(title))!;
const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** content/ copied, one file changed; what the build would print. */
function problemsAfter(file: string, change: (text: string) => string): string[] {
  const root = mkdtempSync(join(tmpdir(), 'instructor-docs-'));
  roots.push(root);
  cpSync(join(PROJECT_ROOT, 'content'), join(root, 'content'), { recursive: true });
  const path = join(root, file);
  writeFileSync(path, change(readFileSync(path, 'utf8')));
  return contentProblems(root);
}

test("the failed deploy's line the guide quotes is the line the build prints", () => {
  const quoted = /`(content\/sessions\/private\.md, line \d+: price: [^`]+)`/.exec(
    section('Editing the content'),
  )?.[1];
  expect(quoted).toBeDefined();
  expect(
    problemsAfter('content/sessions/private.md', (text) =>
      text.replace(/^price: .*$/m, 'price: one hundred and twenty'),
    ),
  ).toEqual([quoted]);
});

test('the slips the guide says are taken as meant are', () => {
  const editing = section('Editing the content');
  for (const slip of ['`$125`', '`125.00`', '`Thu`', '`Thursday`', '`6 PM`']) {
    expect(editing).toContain(slip);
  }
  expect([dollarsOf('$125'), dollarsOf('125.00')]).toEqual([125, 125]);
  expect([weekdayOf('Thu'), weekdayOf('Thursday')]).toEqual(['Th', 'Th']);
  expect(clockOf('6 PM')).toBe('18:00');
});

test('publishing a waiver version names only lines content/waiver.md has: no hash, no list, no command', () => {
  const steps = section('A new version of the waiver');
  for (const line of ['version', 'material', 'changes']) {
    expect(steps).toContain(`\`${line}`);
    expect(Object.keys(waiverFrontmatterSchema.shape)).toContain(line);
  }
  expect(steps).not.toMatch(/SHA-256|sha256|waiver-versions|npm run|terminal/);
  expect(guide + desk).not.toContain('waiver-versions.yaml');
});
