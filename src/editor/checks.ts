/**
 * The content editor's checks, in the build's words: a field is checked with the very schema the
 * build checks its line with (src/integrations/content-check.ts), and a whole file, before it is
 * saved, with the file's schema, refinements across its lines included. Runs in the browser
 * (/admin) and in the build; no Node built-ins.
 *
 * A field's schema is found by walking the file's schema with zod 4's public accessors
 * (`ZodObject.shape`, `ZodArray.element`, `.unwrap()` of an optional or a default, a pipe's `.in`
 * and `.out`): `z.toJSONSchema` describes a field's kind, but only the zod schema holds its
 * messages.
 */
import { z } from 'zod';
import { issuesOf } from '../shared/content-fields';

/** A line's place in a file: its names, `'*'` for any item of a list. */
export type FieldPath = readonly (string | number)[];

/** The schema of the line at `path` in a file checked with `schema`; none if there is no such line. */
export function fieldAt(schema: z.ZodType, path: FieldPath): z.ZodType | undefined {
  let at: z.ZodType | undefined = schema;
  for (const part of path) {
    at = inner(at, part);
    if (!at) return undefined;
  }
  return at;
}

/** What `schema` holds: the schema of `part` in it. */
function inner(schema: z.ZodType, part: string | number): z.ZodType | undefined {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) {
    return inner(schema.unwrap() as z.ZodType, part);
  }
  if (schema instanceof z.ZodPipe) {
    // A preprocess (`$125` taken as 125): what it hands on is checked by its output schema.
    return inner((schema.out as z.ZodType) ?? schema.in, part);
  }
  if (schema instanceof z.ZodObject) return (schema.shape as Record<string, z.ZodType>)[part];
  if (schema instanceof z.ZodArray && (part === '*' || typeof part === 'number')) {
    return schema.element as z.ZodType;
  }
  if (schema instanceof z.ZodRecord && typeof part === 'string')
    return schema.valueType as z.ZodType;
  return undefined;
}

/** An empty field as the editor leaves it ('' or an empty list): a line left out of the file. */
export function absent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** Her words for what is wrong with one field's value, as the build says it; none when right. */
export function fieldProblem(schema: z.ZodType, value: unknown): string | undefined {
  return issuesOf(schema, absent(value) ? undefined : value)[0]?.message;
}

/** The words a field says when its value is wrong: what to write, with an example. */
export function fieldHint(schema: z.ZodType): string | undefined {
  const message = issuesOf(schema, Symbol('not a value'))[0]?.message;
  return message?.replace(/^missing: /, '');
}

/**
 * Her words for each mistake in a file's lines, as the build prints them after the file's name
 * and line (`price: use a number of US dollars, e.g. 120`); empty when the file is right.
 */
export function fileProblems(schema: z.ZodType, data: unknown): string[] {
  const problems = issuesOf(schema, data).flatMap((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    return keys.map((key) => {
      const field = key ?? [...issue.path].reverse().find((part) => typeof part === 'string');
      return field === undefined ? issue.message : `${String(field)}: ${issue.message}`;
    });
  });
  return [...new Set(problems)];
}

/** A file's lines as the editor holds them, its empty fields left out as the file would. */
export function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => !absent(item))
        .map(([key, item]) => [key, withoutEmpty(item)]),
    );
  }
  return value;
}
