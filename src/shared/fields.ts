/**
 * The fields both forms are made of, described once: each form lists its fields as data (label,
 * kind, cap, how to ask for it) and gets from here its Zod schema, its field errors, and what its
 * inputs need (type, autocomplete, maxLength). The browser and the functions use the same schemas.
 *
 * Every text field refuses what Postgres or a mail client would choke on: NUL (Postgres refuses it
 * in text, so it would be a 500) and the other control characters, and line breaks where the value
 * is one line (a name that reaches an e-mail header).
 */
import { z } from './zod';

export type FieldKind = 'text' | 'email' | 'phone';

export interface FieldSpec {
  /** The label people read, letter for letter in the product's words. */
  label: string;
  kind: FieldKind;
  required: boolean;
  /** The longest value accepted, in characters. */
  max: number;
  /** How the field is named in a sentence: "Please enter {about}." */
  about: string;
  multiline?: boolean;
  autoComplete?: string;
  placeholder?: string;
}

// Allowed: tab everywhere; line feed and carriage return only in multi-line fields.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

const PHONE_CHARACTERS = /^[\d\s+().\-/#extEXT]+$/;
const EMAIL = z.email();

/** The Zod schema of one described field: trimmed text, its cap, its kind's own check. */
export function fieldSchema(spec: FieldSpec) {
  const { about, max, required, multiline, kind } = spec;
  const missing = `Please enter ${about}.`;
  let text = z
    .string(missing)
    .trim()
    .max(max, `Please keep ${about} under ${max.toLocaleString('en-US')} characters.`);
  if (required) text = text.refine((value) => value.length > 0, missing);
  // An e-mail address or a phone number has a format of its own, which refuses the rest.
  if (kind === 'email') {
    text = text.refine(
      (value) => value === '' || EMAIL.safeParse(value).success,
      'Please enter a valid e-mail address, like name@example.com.',
    );
  } else if (kind === 'phone') {
    text = text.refine(
      (value) =>
        value === '' || ((value.match(/\d/g) ?? []).length >= 7 && PHONE_CHARACTERS.test(value)),
      'Please enter a phone number with at least 7 digits.',
    );
  } else {
    text = text
      .refine(
        (value) => !CONTROL.test(value),
        `Please remove the control characters from ${about}.`,
      )
      .refine(
        (value) => multiline || !LINE_BREAK.test(value),
        `Please write ${about} on one line.`,
      );
  }
  return required ? text : text.optional().default('');
}

/** A Zod object of described fields, typed field by field. */
export function fieldsSchema<F extends Record<string, FieldSpec>>(fields: F) {
  const shape = Object.fromEntries(
    Object.entries(fields).map(([name, spec]) => [name, fieldSchema(spec)]),
  );
  return shape as { [K in keyof F]: ReturnType<typeof fieldSchema> };
}

/** What an input element needs to check the field itself, before or without any script. */
export function inputAttributes(spec: FieldSpec) {
  return {
    type: spec.kind === 'email' ? 'email' : spec.kind === 'phone' ? 'tel' : 'text',
    required: spec.required,
    maxLength: spec.max,
    autoComplete: spec.autoComplete,
    placeholder: spec.placeholder,
  };
}

/** The visitor's full name, asked the same way by the contact and booking forms. */
export const NAME_FIELD = {
  label: 'Name',
  kind: 'text',
  required: true,
  max: 100,
  about: 'your name',
  autoComplete: 'name',
  placeholder: 'Your full name',
} as const satisfies FieldSpec;

/** The visitor's e-mail address, asked the same way by every form. */
export const EMAIL_FIELD = {
  label: 'Email',
  kind: 'email',
  required: true,
  max: 254,
  about: 'your e-mail address',
  autoComplete: 'email',
} as const satisfies FieldSpec;

/**
 * Made in the browser for each submission and kept across its retries: the server stores a
 * submission id once, so a retry or a double click never files anything twice.
 */
export const submissionIdField = (noun: string) =>
  z.uuid({ error: `The form lost track of this ${noun}: please reload the page.` }).optional();

export type FieldErrors = Record<string, string>;

/** The first problem of each field, keyed by field, ready to show next to it. */
export function fieldErrors(error: Pick<z.core.$ZodError, 'issues'>): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && !(field in errors)) errors[field] = issue.message;
  }
  return errors;
}

/** Every problem once, one sentence each, in the order of the fields. */
export function describeProblems(errors: FieldErrors): string {
  return [...new Set(Object.values(errors))].join(' ');
}
