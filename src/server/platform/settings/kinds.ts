import { z } from 'zod';

/**
 * The kinds of value a setting holds, each a zod schema from the variable's text (trimmed, never
 * blank) to what the code uses, failing with what the value must be ("must be …"), and the words
 * the table in docs/settings.md is made of, kept in `settingWords`.
 */

/** What a setting is, for people: docs/settings.md's table and the errors that name it. */
export interface SettingWords {
  /** What it does, in the docs' words (Markdown). */
  about: string;
  /** The default, as a person reads it (Markdown). */
  fallback: string;
  /** A secret (a password, a key): an error about it never quotes it. */
  secret?: boolean;
  /** A deployed site must set it: the build of a deploy stops without it. */
  requiredWhenDeployed?: boolean;
  /** A deployed site that sets this other setting must set this one too (a key's partner). */
  requiredWhenDeployedWith?: string;
  /** A deployed site must not set it (a test's override): the build of a deploy stops with it. */
  forbiddenWhenDeployed?: boolean;
  /** A rate limit (`<count>/<window>`). */
  rateLimit?: boolean;
}

export const settingWords = z.registry<SettingWords>();

/** A setting: its schema (with its default) and its words. */
function setting<S extends z.ZodType>(schema: S, words: SettingWords): S {
  settingWords.add(schema, words);
  return schema;
}

type Words = Omit<SettingWords, 'fallback'> & { fallback?: string };

const EMAIL = /^[^\s@,]+@[^\s@,]+$/;

/** Any text: a path, a host, a database address. */
export const text = (words: Words & { fallback: string }) => setting(z.string().optional(), words);

/** Text that must match `pattern`. */
export const matching = (pattern: RegExp, rule: string, words: Words & { fallback: string }) =>
  setting(z.string().regex(pattern, { error: rule }).optional(), words);

export const address = (words: Words & { fallback: string }) =>
  setting(z.email({ pattern: EMAIL, error: 'must be an e-mail address' }).optional(), words);

export const addresses = (words: Words & { fallback: string }) => {
  const error = 'must be e-mail addresses separated by commas';
  const list = z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.email({ pattern: EMAIL, error }), { error }).min(1, { error }));
  return setting(list.optional(), words);
};

/** An http(s) address, read as a URL. */
export const siteAddress = (words: Words & { fallback: string }) =>
  setting(
    z
      .url({ protocol: /^https?$/, error: 'must be an address like https://studio.example' })
      .transform((value) => new URL(value))
      .optional(),
    words,
  );

/** A number of `min` or more (a whole one if `whole`), `fallback` when unset. */
export function number(
  fallback: number,
  { min = 1, whole = false }: { min?: 0 | 1; whole?: boolean },
  words: Words,
) {
  const error = `must be ${whole ? 'a whole number' : 'a number'} of ${min} or more`;
  let read = z.coerce.number({ error }).min(min, { error });
  if (whole) read = read.int({ error });
  return setting(read.default(fallback), {
    ...words,
    fallback: words.fallback ?? `\`${fallback}\``,
  });
}

/** A whole number of 1 or more. */
export const count = (fallback: number, words: Words) => number(fallback, { whole: true }, words);

/** A time in milliseconds (`min` 0: zero is allowed, and means "never" or "no limit"). */
export const milliseconds = (ms: number, words: Words, min: 0 | 1 = 1) =>
  number(ms, { min }, words);

/** Requests allowed per window, e.g. `5/10m`. */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

const UNITS = { s: 1, m: 60, h: 3_600 } as const;

/** A limit written as `<count>/<window>`, e.g. `5/10m` (five per ten minutes), `20/1h`, `100/30s`. */
export function rateLimit(fallback: `${number}/${number}${keyof typeof UNITS}`, about: string) {
  const error = 'must be a count per time, like 5/10m, 20/1h or 100/30s';
  const read = z
    .string()
    .regex(/^\d+\s*\/\s*\d+\s*[smh]$/, { error })
    .transform((value): RateLimit => {
      const [, limit, window, unit] = /^(\d+)\s*\/\s*(\d+)\s*([smh])$/.exec(value)!;
      return {
        limit: Number(limit),
        windowSeconds: Number(window) * UNITS[unit as keyof typeof UNITS],
      };
    })
    .refine((rate) => rate.limit >= 1 && rate.windowSeconds >= 1, { error });
  return setting(read.prefault(fallback), { about, fallback: `\`${fallback}\``, rateLimit: true });
}

/** `1`, `true` or `yes`; `0`, `false` or `no`; unset: false. */
export const flag = (about: string) =>
  setting(
    z
      .stringbool({
        truthy: ['1', 'true', 'yes'],
        falsy: ['0', 'false', 'no'],
        case: 'insensitive',
        error: 'must be true or false',
      })
      .default(false),
    { about, fallback: 'unset (false)' },
  );

/** A 32-byte key written as base64 (44 characters) or hex (64 characters); else `undefined`. */
export function keyBytes(value: string): Buffer | undefined {
  const key = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/]+={0,2}$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined;
  return key?.length === 32 ? key : undefined;
}

/** A 32-byte key, read as its bytes. */
export const key = (words: Words & { fallback: string }) => {
  const error = 'must be 32 bytes, written as base64 or hex';
  return setting(
    z
      .string()
      .transform((value) => keyBytes(value))
      .pipe(z.instanceof(Buffer, { error }))
      .optional(),
    { ...words, secret: true },
  );
};

/** Keys of 32 bytes separated by commas; unset: none. */
export const keys = (words: Words & { fallback: string }) => {
  const error = 'must be keys of 32 bytes, written as base64 or hex, separated by commas';
  return setting(
    z
      .string()
      .transform((value) =>
        value
          .split(/[\s,]+/)
          .filter(Boolean)
          .map((part) => keyBytes(part)),
      )
      .pipe(z.array(z.instanceof(Buffer, { error })))
      .default([]),
    { ...words, secret: true },
  );
};

/** Reads a value with a rule of its own: `check` returns what it must be, or nothing. */
export const checked = (
  check: (value: string) => string | undefined,
  words: Words & { fallback: string },
) =>
  setting(
    z
      .string()
      .superRefine((value, context) => {
        const rule = check(value);
        if (rule) context.addIssue({ code: 'custom', message: rule });
      })
      .optional(),
    words,
  );
