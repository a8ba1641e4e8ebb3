/**
 * The content editor (/admin) is made from the content schemas the build checks: every file and
 * folder of content/ has its place in it, every line of a schema a field with the schema's
 * constraints and words, and a value the build refuses is refused by the editor's check in the
 * same words (src/editor/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { fieldAt, fieldProblem, fileProblems } from '../../src/editor/checks';
import { editorCollections, type EditorCollection } from '../../src/editor/collections';
import { checkName, editorConfig, jsonOf, type EditorField } from '../../src/editor/config';
import { readMarkdown, readYaml, writeMarkdown, writeYaml } from '../../src/editor/files';
import { contentProblems, RETENTION_KINDS } from '../../src/integrations/content-check';
import { copyProject, PROJECT_ROOT, type ProjectCopy } from '../fixtures/project-copy';

const context = { retentionKinds: RETENTION_KINDS, timeZone: 'America/Los_Angeles' };
const collections = editorCollections(context);
const config = editorConfig(
  collections,
  { repo: 'studio/site', branch: 'main' },
  'https://example.test',
);

/** Every file the editor edits: its check name, its schema and its fields in the configuration. */
function editedFiles(all: EditorCollection[] = collections) {
  return all.flatMap((collection) => {
    const configured = config.collections.find((entry) => entry.name === collection.name)!;
    if ('files' in collection) {
      return collection.files.map((file) => ({
        name: checkName(collection.name, file.name),
        path: file.file,
        schema: file.schema,
        needs: file.needs ?? [],
        fields: (configured as { files: { name: string; fields: EditorField[] }[] }).files.find(
          (entry) => entry.name === file.name,
        )!.fields,
      }));
    }
    return [
      {
        name: checkName(collection.name),
        path: collection.folder,
        schema: collection.schema,
        needs: [] as readonly string[],
        fields: (configured as { fields: EditorField[] }).fields,
      },
    ];
  });
}

const content = join(PROJECT_ROOT, 'content');

describe('what the editor covers', () => {
  test('a collection of files is all YAML or all Markdown (Decap reads one format for it)', () => {
    for (const collection of collections.filter((entry) => 'files' in entry)) {
      const kinds = new Set(collection.files.map((file) => file.file.split('.').at(-1)));
      expect(kinds.size, collection.name).toBe(1);
    }
  });

  test('every file and folder of content/ the build checks is in the editor', () => {
    const edited = new Set(editedFiles().map((file) => file.path));
    const checked = readdirSync(content, { withFileTypes: true })
      .filter((entry) => !entry.name.startsWith('_') && entry.name !== 'images')
      .filter((entry) => entry.isDirectory() || /\.(md|yaml)$/.test(entry.name))
      .map((entry) => `content/${entry.name}`);
    expect(checked.filter((path) => !edited.has(path))).toEqual([]);
  });
});

type Json = ReturnType<typeof jsonOf> & Record<string, unknown>;

/** Each line of a schema (as JSON Schema), with its path, beside the editor's field for it. */
function* pairs(
  json: Json,
  fields: EditorField[],
  path: string[] = [],
): Generator<{ path: string[]; json: Json; required: boolean; field: EditorField | undefined }> {
  const required = new Set((json.required as string[] | undefined) ?? []);
  for (const [name, property] of Object.entries((json.properties ?? {}) as Record<string, Json>)) {
    const field = fields.find((entry) => entry.name === name);
    yield { path: [...path, name], json: property, required: required.has(name), field };
    const items = property.items as Json | undefined;
    if (field?.fields && property.type === 'object')
      yield* pairs(property, field.fields, [...path, name]);
    if (field?.fields && items?.type === 'object')
      yield* pairs(items, field.fields, [...path, name, '*']);
  }
}

describe('every line of every schema has a field with its constraints', () => {
  for (const file of editedFiles()) {
    test(`${file.name}`, () => {
      const json = jsonOf(file.schema) as Json;
      for (const { path, json: line, required, field } of pairs(json, file.fields)) {
        const where = `${file.name}: ${path.join('.')}`;
        expect(field, where).toBeDefined();
        // Must be there unless the schema has a default for it (or its page shows it).
        const needed = path.length === 1 && file.needs.includes(path[0]!);
        expect(field!.required, where).toBe((required && line.default === undefined) || needed);
        if (line.default !== undefined) expect(field!.default, where).toEqual(line.default);
        const kind = (line.type ?? (line.anyOf ? 'choice' : undefined)) as string | undefined;
        if (line.enum) expect(field!.options, where).toEqual(line.enum);
        else if (kind === 'integer')
          expect([field!.widget, field!.value_type], where).toEqual(['number', 'int']);
        else if (kind === 'number')
          expect([field!.widget, field!.value_type], where).toEqual(['number', 'float']);
        else if (kind === 'boolean') expect(field!.widget, where).toBe('boolean');
        else if (kind === 'array') expect(['list', 'select'], where).toContain(field!.widget);
        else if (kind === 'object') expect(field!.widget, where).toBe('object');
        // The field is checked with the very schema the build checks its line with.
        const [name, ...inner] = field!.check!.split('.');
        expect(name, where).toBe(file.name);
        expect(fieldAt(file.schema, inner), where).toBe(fieldAt(file.schema, path));
        expect(fieldAt(file.schema, path), where).toBeDefined();
      }
    });
  }
});

describe('a saved file keeps what she did not change', () => {
  const files = readdirSync(content, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(md|yaml)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
  // Her own line breaks in a long sentence may move (the same words, folded before column 100).
  test.each(files.map((file) => [file.slice(content.length + 1), file]))('%s', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const [read, write] = file.endsWith('.md')
      ? [readMarkdown, writeMarkdown]
      : [readYaml, writeYaml];
    const again = write(read(text));
    const { __file: _before, ...lines } = read(text);
    const { __file: _after, ...linesAgain } = read(again);
    expect(linesAgain).toEqual(lines);
    const comments = (source: string) => source.split('\n').filter((line) => /^\s*#/.test(line));
    expect(comments(again)).toEqual(comments(text));
  });

  test('a changed line is the only line that changes, its comment kept', () => {
    const text = readFileSync(join(content, 'classes.yaml'), 'utf8');
    const changed = writeYaml({ ...readYaml(text), cutoffHours: 10 });
    expect(changed).toBe(text.replace('cutoffHours: 12', 'cutoffHours: 10'));
  });

  test("a Markdown file's new time is quoted, as Astro's YAML 1.1 reader needs", () => {
    const written = writeMarkdown({ title: 'Evening', start: '18:00', body: 'Text.' });
    expect(written).toBe("---\ntitle: Evening\nstart: '18:00'\n---\n\nText.\n");
  });
});

describe("the editor's checks say what the build says", () => {
  let copy: ProjectCopy;
  // A copy of the project takes a while on busy cores.
  beforeAll(async () => {
    copy = await copyProject('editor-checks-');
  }, 120_000);
  afterAll(() => copy?.dispose());

  /** The build's line for `file` changed by `change`, after the file's name and line number. */
  async function buildSays(file: string, change: (text: string) => string): Promise<string[]> {
    const before = await copy.read(file);
    await copy.edit(file, change);
    try {
      return contentProblems(copy.dir, RETENTION_KINDS)
        .filter((line) => line.startsWith(file))
        .map((line) => line.replace(/^[^:]+: /, ''));
    } finally {
      await copy.write(file, before);
    }
  }

  const schemaOf = (name: string) => editedFiles().find((file) => file.name === name)!.schema;
  const field = (name: string, ...path: string[]) => fieldAt(schemaOf(name), path) as z.ZodType;

  test.each([
    ['sessions', 'content/sessions/private.md', ['price'], 'price: 120', 'price: -5', -5],
    ['sessions', 'content/sessions/private.md', ['price'], 'price: 120\n', '', undefined],
    ['testimonials', 'content/testimonials/sarah.md', ['rating'], 'rating: 5', 'rating: 7', 7],
    ['sessions', 'content/sessions/private.md', ['where'], 'where: studio', 'where: boat', 'boat'],
    [
      'studio/classes',
      'content/classes.yaml',
      ['classes', '*', 'time'],
      "time: '18:00'",
      "time: '25:00'",
      '25:00',
    ],
    [
      'studio/site',
      'content/site.yaml',
      ['email'],
      'email: hello@stillpointpilates.studio',
      'email: hello',
      'hello',
    ],
  ] as const)('%s %s: %s', async (name, file, path, from, to, value) => {
    const build = await buildSays(file, (text) => text.replace(from, to));
    expect(build).toEqual([`${path.at(-1)}: ${fieldProblem(field(name, ...path), value)}`]);
  });

  test('a refinement across lines (a class whose minimum is over its places) is told before saving', async () => {
    const file = 'content/classes.yaml';
    const build = await buildSays(file, (text) =>
      text.replace(
        '    lengthMinutes: 55\n',
        '    lengthMinutes: 55\n    capacity: 2\n    minimum: 3\n',
      ),
    );
    const lines = readYaml(await copy.read(file));
    const classes = (lines.classes as Record<string, unknown>[]).map((entry, index) =>
      index === 0 ? { ...entry, capacity: 2, minimum: 3 } : entry,
    );
    const {
      __file: _text,
      body: _body,
      ...data
    } = { ...lines, classes } as Record<string, unknown>;
    expect(fileProblems(schemaOf('studio/classes'), data)).toEqual(build);
  });
});
