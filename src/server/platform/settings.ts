import type { z } from 'zod';
import { settingWords, type RateLimit, type SettingWords } from './settings/kinds.ts';
import { siteSettings } from './settings/site.ts';
import { startSettings } from './settings/start.ts';

/**
 * Every environment variable the functions and `npm start` read, as two zod schemas: the site's
 * (settings/site.ts) and `npm start`'s own (settings/start.ts). Each setting is read on its own,
 * when the code asks for it: its default when unset or blank, else its schema's reading. A value
 * that cannot be read is an error that names the variable (and never quotes a secret), said once
 * in the log: a setting is never quietly replaced by its default. docs/settings.md's table of
 * settings is written from the schemas (scripts/settings-table.ts; a test checks it).
 *
 * These files import nothing of the project but zod, so `npm start` (scripts/server/settings.ts,
 * run by Node as it is) and the build's check of a deploy (src/integrations/deploy-settings.ts)
 * read through them too.
 */

export { keyBytes, type RateLimit } from './settings/kinds.ts';
export { siteSettings, startSettings };

/** A value given for a setting that cannot be read. */
export class SettingError extends Error {
  readonly setting: string;
  /** What the outbox records when a mail fails on it: the name, never the value. */
  readonly code: string;
  constructor(setting: string, message: string) {
    super(message);
    this.name = 'SettingError';
    this.setting = setting;
    this.code = `${setting} unreadable`;
  }
}

/**
 * A setting a deployed function cannot do without: the one clear line in the log that names it
 * (once per instance), and an error whose `code` names it too, so the outbox records it.
 */
export class MissingSettingError extends Error {
  readonly setting: string;
  readonly code: string;
  constructor(setting: string, purpose: string) {
    super(`${setting} is not set: ${purpose}`);
    this.name = 'MissingSettingError';
    this.setting = setting;
    this.code = `${setting} not set`;
  }
}

const reported = new Set<string>();

function sayOnce(
  key: string,
  line: string,
  advice = "Set it in the site's environment variables.",
) {
  if (reported.has(key)) return;
  reported.add(key);
  console.error(`Configuration: ${line}. ${advice}`);
}

export function missingSetting(setting: string, purpose: string): MissingSettingError {
  const error = new MissingSettingError(setting, purpose);
  sayOnce(`${setting} missing`, error.message);
  return error;
}

const SCHEMAS = { ...siteSettings.shape, ...startSettings.shape };

export type SiteSettingName = keyof typeof siteSettings.shape;
export type SettingName = keyof typeof SCHEMAS;
export type SettingValue<N extends SettingName> = z.output<(typeof SCHEMAS)[N]>;

/** Every setting's name: the site's, then `npm start`'s. */
export const SETTING_NAMES = Object.keys(SCHEMAS) as SettingName[];

/**
 * Settings that were renamed, by their former name: that name is no longer read, so a site that
 * still sets it is told the new one (settingProblems, at the build of a deploy and at `npm
 * start`; and once in a function's log) rather than left on the default without a word.
 */
export const RENAMED_SETTINGS: Readonly<Record<string, SettingName>> = {
  NOTIFY_RATE_LIMIT: 'LIST_RATE_LIMIT',
  NOTIFY_CONFIRM_LIMIT: 'LIST_CONFIRM_LIMIT',
  // It limits every booking (consultations, sessions, classes, the waitlist), not only the first.
  CONSULTATION_RATE_LIMIT: 'BOOKING_RATE_LIMIT',
};

const renamed = (former: string, name: string) =>
  `${former} is set, but that name is no longer read: the setting is now called ${name}; rename it`;

/** A setting's words: what it does, its default as a person reads it, whether it is a secret. */
export function settingWordsOf(name: SettingName): SettingWords {
  return settingWords.get(SCHEMAS[name])!;
}

/** The settings that hold a rate limit. */
export type RateLimitSetting = {
  [N in SettingName]: SettingValue<N> extends RateLimit ? N : never;
}[SettingName];

type Env = Record<string, string | undefined>;

/**
 * A setting's value: read from `env` when set, its default when unset or blank. A value that
 * cannot be read throws a SettingError naming the variable, and says so once in the log.
 */
export function readSetting<N extends SettingName>(
  name: N,
  env: Env = process.env,
): SettingValue<N> {
  const value = env[name]?.trim() || undefined;
  for (const [former, now] of Object.entries(RENAMED_SETTINGS)) {
    if (now === name && env[former]?.trim())
      sayOnce(
        `${former} renamed`,
        renamed(former, name),
        `Until it is, ${name} keeps its own value (or its default).`,
      );
  }
  try {
    return readValue(name, value);
  } catch (error) {
    if (error instanceof SettingError) sayOnce(`${name}=${value}`, error.message);
    throw error;
  }
}

/** A value read; else a SettingError that quotes it unless it is a secret. */
function readValue<N extends SettingName>(name: N, value: string | undefined): SettingValue<N> {
  const read = SCHEMAS[name].safeParse(value);
  if (read.success) return read.data as SettingValue<N>;
  const quoted = settingWordsOf(name).secret ? '' : ` (got "${value}")`;
  throw new SettingError(name, `${name} ${read.error.issues[0]?.message}${quoted}`);
}

/** A setting's words as the log says them: Markdown's backticks left out, the first letter small. */
const plain = (words: string) =>
  (words.charAt(0).toLowerCase() + words.slice(1)).replaceAll('`', '');

/**
 * What is wrong with the settings in `env`: one sentence per renamed setting still set under its
 * former name, per value that cannot be read, and, for a deploy, per setting a deployed site
 * cannot do without. A deploy reads the site's settings only; `npm start` reads them all.
 */
export function settingProblems(env: Env, { deployed }: { deployed: boolean }): string[] {
  const names = deployed ? (Object.keys(siteSettings.shape) as SettingName[]) : SETTING_NAMES;
  const problems: string[] = [];
  for (const [former, name] of Object.entries(RENAMED_SETTINGS)) {
    if (env[former]?.trim()) problems.push(`${renamed(former, name)}.`);
  }
  for (const name of names) {
    const words = settingWordsOf(name);
    const value = env[name]?.trim();
    try {
      if (value) {
        readValue(name, value);
        if (deployed && words.forbiddenWhenDeployed) {
          problems.push(`${name} is set: ${plain(words.about)}; remove it.`);
        }
      } else if (deployed && words.requiredWhenDeployed) {
        problems.push(`${name} is not set: ${plain(words.about)}.`);
      } else if (
        deployed &&
        words.requiredWhenDeployedWith &&
        env[words.requiredWhenDeployedWith]?.trim()
      ) {
        problems.push(
          `${name} is not set, and ${words.requiredWhenDeployedWith} is: ${plain(words.about)}.`,
        );
      }
    } catch (error) {
      if (!(error instanceof SettingError)) throw error;
      problems.push(`${error.message}.`);
    }
  }
  return problems;
}

/** The settings a deployed site must set, with what each is for. */
export const REQUIRED_WHEN_DEPLOYED: readonly [SettingName, string][] = SETTING_NAMES.filter(
  (name) => settingWordsOf(name).requiredWhenDeployed,
).map((name) => [name, plain(settingWordsOf(name).about)]);

/** The longest window of any rate limit, in seconds: how long a window's count is needed. */
export function longestRateLimitWindow(env: Env = process.env): number {
  const names = SETTING_NAMES.filter((name) => settingWordsOf(name).rateLimit);
  return Math.max(...names.map((name) => (readSetting(name, env) as RateLimit).windowSeconds));
}

/**
 * The site's address when nothing says otherwise (no `SITE_URL`, not on Netlify): the address
 * `npm start` listens on, from `HOST` and `PORT` (`http://127.0.0.1:8888` by default), written
 * as the server writes it, so the built pages (canonical, sitemap, calendar files) and the
 * functions' links point where the site answers. `PORT=0` (any free port) is not known before
 * the server listens: the build then says 8888, and the server gives the functions its own.
 */
export function localSiteUrl(env: Env = process.env): string {
  const host = readSetting('HOST', env) ?? '127.0.0.1';
  const port = readSetting('PORT', env) || 8888;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/**
 * What the platform tells the code (Netlify, its local tools, AWS Lambda): read, never set by
 * hand, so they are not settings. Their values are taken as they come.
 */
export const PLATFORM_VARIABLES = {
  URL: "Netlify: the site's main address",
  DEPLOY_PRIME_URL: "Netlify: the address of the deploy's branch or preview",
  DEPLOY_URL: 'Netlify: the address of this one deploy',
  CONTEXT: 'Netlify: production, deploy-preview, branch-deploy or dev',
  NETLIFY: 'Netlify: "true" in a Netlify build',
  NETLIFY_LOCAL: 'Netlify: "true" in its local tools',
  AWS_LAMBDA_FUNCTION_NAME: 'AWS Lambda (Netlify Functions): the running function',
  LAMBDA_TASK_ROOT: 'AWS Lambda (Netlify Functions): the folder the function runs from',
  // What npm start hands on to a function's `context`, as Netlify would.
  SITE_ID: "Netlify: the site's id",
  SITE_NAME: "Netlify: the site's name",
  DEPLOY_ID: "Netlify: the deploy's id",
  NETLIFY_ACCOUNT_ID: "Netlify: the account's id",
  AWS_REGION: 'AWS Lambda: the region the function runs in',
} as const;

/** The value of a platform variable, as it came. */
export function platformValue(name: keyof typeof PLATFORM_VARIABLES, env: Env = process.env) {
  return env[name] || undefined;
}
