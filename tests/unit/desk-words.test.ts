/**
 * The desk speaks the instructor's words: no file name, no setting's name, no command. Every
 * string and text of the desk's island and of the words the desk's functions share with it is
 * read as TypeScript sees it (comments, imports and class names aside).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { ACTOR_WORDS } from '../../src/shared/desk-api';

const ROOT = resolve(import.meta.dirname, '../..');
const ISLAND = join(ROOT, 'src/islands/records');
const FILES = [
  ...readdirSync(ISLAND).map((name) => join(ISLAND, name)),
  join(ROOT, 'src/shared/desk-api.ts'),
];

/** A file (`waiver-versions.yaml`, `content/`), a setting (`SMTP_URL`, `validForMonths`), a command. */
const NOT_HERS =
  /validForMonths|\b[\w-]+\.(ya?ml|md|tsx?|json)\b|\bcontent\/|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bnpm run\b/;

function wordsOf(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.TSX,
  );
  const words: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isJsxAttribute(node) && node.name.getText() === 'className') return;
    // A key is code (the stored name that ACTOR_WORDS puts in words), its value is words.
    if (ts.isPropertyAssignment(node)) return visit(node.initializer);
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) words.push(node.text);
    if (ts.isJsxText(node)) words.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return words;
}

describe('the words on the desk', () => {
  test('name no file, setting or command', () => {
    const found = FILES.flatMap((file) =>
      wordsOf(file)
        .filter((words) => NOT_HERS.test(words))
        .map((words) => `${file.slice(ROOT.length + 1)}: ${words.replace(/\s+/g, ' ').trim()}`),
    );
    expect(found).toEqual([]);
  });

  test('speak no developer’s words: no retention run, delivery, versions, material, cutoff or SHA-256', () => {
    // A screen's route (`delivery`, `versions`) is code; its label is her words.
    const developers = (words: string) =>
      /retention run|\bmaterial\b|\bcut ?offs?\b|SHA-256/i.test(words) ||
      /^(Delivery|Versions)$/.test(words.trim());
    const found = FILES.flatMap((file) =>
      wordsOf(file)
        .filter(developers)
        .map((words) => `${file.slice(ROOT.length + 1)}: ${words.replace(/\s+/g, ' ').trim()}`),
    );
    expect(found).toEqual([]);
  });

  test('the access log names the site’s own runs in words, not by their command', () => {
    expect(ACTOR_WORDS['the retention schedule']).toBe('The site’s daily clean-up');
    expect(ACTOR_WORDS['npm run rotate-key']).toBe('Whoever runs the site');
  });
});
