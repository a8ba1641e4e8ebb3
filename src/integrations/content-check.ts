/**
 * The instructor's content files, checked before Astro reads them, with the schemas Astro's
 * collections are made from (src/lib/content-schemas.ts). A mistake stops the build with one
 * line per mistake: the file, the line, the field, what to write with an example
 * (`content/sessions/private.md, line 3: price: use a number of US dollars, e.g. 120`), and
 * nothing else: no stack trace, no hint meant for developers. On Netlify the lines are the end
 * of the deploy log.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { z } from 'zod';
import { eventSchema } from '../lib/content-files.ts';
import {
  availabilitySchema,
  IMAGE_HINT,
  missingBlocks,
  pageSchema,
  programSchema,
  retentionSchema,
  serviceSchema,
  sessionHoursSchema,
  sessionSchema,
  siteSchema,
  testimonialSchema,
  timetableSchema,
  type ImageField,
} from '../lib/content-schemas.ts';
import { RETENTION_RULES } from '../server/retention/rules.ts';
import { issuesOf, says } from '../shared/content-fields.ts';
import {
  WAIVER_VERSIONS_FILE,
  waiverFrontmatterSchema,
  type WaiverVersions,
} from '../shared/waiver-versions.ts';
import { WAIVER_FILE, waiverHistory } from './waiver-history.ts';

/** A file of content/ read for checking: its frontmatter (or YAML) as a document. */
interface Source {
  /** As she knows it: `content/sessions/private.md`. */
  name: string;
  doc: Document.Parsed;
  lines: LineCounter;
  /** Lines before the YAML in the file (the `---` of a Markdown file). */
  offset: number;
}

// Astro reads a Markdown file's frontmatter with js-yaml, which takes `2026-06-14 18:00:00` for
// a date: the check reads it the same way, so it refuses what Astro would.
const FRONTMATTER = /(?:^\uFEFF?|^\s*\n)---([\s\S]*?\n)---/;

function read(root: string, path: string, markdown: boolean): Source | string {
  const name = relative(root, path).split('\\').join('/');
  const text = readFileSync(path, 'utf8');
  let yaml = text;
  let offset = 0;
  if (markdown) {
    const match = FRONTMATTER.exec(text);
    if (!match) {
      return `${name}: the lines at the top are missing: start the file with a line "---", the lines (title: ...), then "---"`;
    }
    yaml = match[1]!;
    offset = text.slice(0, match.index + match[0].indexOf('---') + 3).split('\n').length - 1;
  }
  const lines = new LineCounter();
  const doc = parseDocument(yaml, {
    lineCounter: lines,
    ...(markdown ? { customTags: ['timestamp' as const] } : {}),
  });
  const error = doc.errors[0];
  if (error) {
    const line = (error.linePos?.[0].line ?? 0) + offset;
    return (
      `${name}, line ${line}: this line does not read: check its indentation and the space ` +
      `after its colon, and put words holding ": " or " #" in quotes`
    );
  }
  return { name, doc, lines, offset };
}

/**
 * The line of the value at `path` (of its key `key`, for a line the file may not have), or of
 * the nearest block holding it when it is missing; none for a line missing from the top level.
 */
function lineOf(source: Source, path: PropertyKey[], key?: string): number | undefined {
  let node: Node | undefined;
  let depth = path.length;
  for (; depth > 0 && !node; depth--) {
    const found: unknown = source.doc.getIn(path.slice(0, depth) as unknown[], true);
    if (found && typeof found === 'object') node = found as Node;
  }
  if (!node) {
    if (key === undefined) return undefined;
    node = source.doc.contents ?? undefined;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((item) => isScalar(item.key) && item.key.value === key);
    if (pair && isScalar(pair.key)) node = pair.key;
  }
  return node?.range ? source.lines.linePos(node.range[0]).line + source.offset : undefined;
}

function line(source: Source, path: PropertyKey[], message: string, key?: string): string {
  const field = key ?? [...path].reverse().find((part) => typeof part === 'string');
  const at = field === undefined ? undefined : lineOf(source, path, key);
  const where = at === undefined ? source.name : `${source.name}, line ${at}`;
  return field === undefined ? `${where}: ${message}` : `${where}: ${String(field)}: ${message}`;
}

/** Her words for what `schema` finds wrong with `source`: one line per mistake. */
function problemsOf(source: Source, schema: z.ZodType): string[] {
  const problems: string[] = [];
  for (const issue of issuesOf(schema, source.doc.toJS() ?? {})) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push(line(source, issue.path, issue.message, key));
    } else {
      problems.push(line(source, issue.path, issue.message));
    }
  }
  return [...new Set(problems)];
}

/** The files of a folder (and its folders), drafts (`_...`) left out, as Astro's glob reads them. */
function markdownFiles(folder: string, deep: boolean): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true, recursive: deep })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md') && !entry.name.startsWith('_'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter(
      (path) =>
        !relative(folder, path)
          .split(/[\\/]/)
          .some((part) => part.startsWith('_')),
    )
    .sort();
}

/** An image field for the file at `path`: a file beside it (Astro's `image()` then reads it). */
const imageBeside =
  (path: string): ImageField =>
  () =>
    z.string(says(IMAGE_HINT)).superRefine((value, context) => {
      if (!existsSync(resolve(dirname(path), value))) {
        context.addIssue({ code: 'custom', message: `${value} is not there: ${IMAGE_HINT}` });
      }
    });

/**
 * What is wrong in content/ under `root`, one line per mistake in her words (empty when
 * nothing), and, when content/waiver.md reads, every version of the waiver published.
 */
export function checkContent(
  root: string,
  /** The kinds of record retention.yaml may name (the retention rules'), when known. */
  retentionKinds?: readonly string[],
): { problems: string[]; waiver?: WaiverVersions } {
  const content = join(root, 'content');
  const problems: string[] = [];
  let waiverSource: Source | undefined;
  const check = (path: string, schema: z.ZodType | ((path: string) => z.ZodType), md: boolean) => {
    if (!existsSync(path)) {
      problems.push(
        `${relative(root, path)}: the file is missing: put it back from the repository`,
      );
      return undefined;
    }
    const source = read(root, path, md);
    if (typeof source === 'string') {
      problems.push(source);
      return undefined;
    }
    problems.push(...problemsOf(source, typeof schema === 'function' ? schema(path) : schema));
    return source;
  };

  check(join(content, 'site.yaml'), siteSchema, false);
  check(join(content, 'consultation.yaml'), availabilitySchema, false);
  check(join(content, 'classes.yaml'), timetableSchema, false);
  check(join(content, 'booking.yaml'), sessionHoursSchema, false);
  check(
    join(content, 'retention.yaml'),
    retentionKinds
      ? retentionSchema.superRefine((kinds, context) => {
          for (const kind of Object.keys(kinds).filter((name) => !retentionKinds.includes(name))) {
            context.addIssue({
              code: 'custom',
              path: [kind],
              message: `is not a kind of record: use ${retentionKinds.join(', ')}`,
            });
          }
        })
      : retentionSchema,
    false,
  );
  const folders: [string, z.ZodType | ((path: string) => z.ZodType)][] = [
    ['sessions', sessionSchema],
    ['services', serviceSchema],
    ['programs', (path) => programSchema(imageBeside(path))],
    ['testimonials', (path) => testimonialSchema(imageBeside(path))],
    ['events', eventSchema],
  ];
  for (const [folder, schema] of folders) {
    for (const path of markdownFiles(join(content, folder), true)) check(path, schema, true);
  }
  for (const path of markdownFiles(content, false)) {
    const source = check(path, (file) => pageSchema(imageBeside(file)), true);
    const id = relative(content, path).replace(/\.md$/, '');
    const data = (source?.doc.toJS() ?? {}) as Record<string, unknown>;
    if (source && id === 'waiver') waiverSource = source;
    for (const problem of source ? missingBlocks(id, data) : []) {
      problems.push(`${source!.name}: ${problem}`);
    }
  }
  return { problems, ...waiverVersionsOf(root, waiverSource, problems) };
}

/** The waiver's versions, from its frontmatter and the repository's history of the file. */
function waiverVersionsOf(
  root: string,
  source: Source | undefined,
  problems: string[],
): { waiver?: WaiverVersions } {
  if (!source) return {};
  const frontmatter = problemsOf(source, waiverFrontmatterSchema);
  problems.push(...frontmatter);
  if (frontmatter.length > 0) return {};
  const { versions, problem } = waiverHistory(root);
  if (problem) {
    problems.push(line(source, ['version'], problem));
    return {};
  }
  const { validForMonths } = waiverFrontmatterSchema.parse(source.doc.toJS());
  return { waiver: { ...(validForMonths ? { validForMonths } : {}), versions } };
}

/** What is wrong in content/ under `root`, one line per mistake in her words; empty when nothing. */
export const contentProblems = (root: string, retentionKinds?: readonly string[]) =>
  checkContent(root, retentionKinds).problems;

/** The kinds of record the retention rules keep: the names retention.yaml may have. */
export const RETENTION_KINDS = [...new Set(RETENTION_RULES.map((rule) => rule.period))];

export default function contentCheck(): AstroIntegration {
  let waiver: WaiverVersions | undefined;
  return {
    name: 'content-check',
    hooks: {
      'astro:config:setup': ({ command, config }) => {
        // `astro dev` shows Astro's own overlay, and picks up a fix as soon as it is saved.
        if (command === 'dev') return;
        const checked = checkContent(fileURLToPath(config.root), RETENTION_KINDS);
        waiver = checked.waiver;
        if (checked.problems.length === 0) return;
        // Written at once (a pipe would lose what an asynchronous write had not sent yet).
        writeSync(2, `${checked.problems.join('\n')}\n`);
        process.exit(1);
      },
      // The versions of the waiver, for the functions (src/server/waiver/versions.ts).
      'astro:build:done': ({ dir }) => {
        if (!waiver) throw new Error(`${WAIVER_FILE} was not checked before the build`);
        writeFileSync(new URL(WAIVER_VERSIONS_FILE, dir), `${JSON.stringify(waiver, null, 2)}\n`);
      },
    },
  };
}
