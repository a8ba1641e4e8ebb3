/**
 * What `netlify.toml` says, read by Netlify's own config package (`@netlify/config`, offline:
 * no account, no network), so the local server and a Netlify build agree on the publish folder,
 * the functions folder and their bundling settings, and the migrations folder.
 */
import { resolveConfig } from '@netlify/config';
import type { Config as ZisiConfig } from '@netlify/zip-it-and-ship-it';
import { platformValue } from '../../src/server/platform/settings.ts';

export interface SiteConfig {
  root: string;
  /** `netlify.toml`, or undefined when the project has none. */
  configPath: string | undefined;
  publishDir: string;
  functionsDir: string | undefined;
  /** `[functions]` in the form Netlify's bundler takes (camelCase, one entry per name glob). */
  functions: ZisiConfig;
  migrationsDir: string | undefined;
}

/** `[functions]` settings as netlify.toml spells them. */
interface TomlFunctionsConfig {
  external_node_modules?: string[];
  ignored_node_modules?: string[];
  included_files?: string[];
  node_bundler?: string;
  schedule?: string;
  [other: string]: unknown;
}

const KNOWN = new Set([
  'external_node_modules',
  'ignored_node_modules',
  'included_files',
  'node_bundler',
  'schedule',
]);

/**
 * Netlify's build turns the snake_case keys of `[functions]` into the bundler's camelCase options
 * (in `@netlify/build`, which this project does not install); these are the ones a Node site
 * uses. `included_files` are relative to the base directory, here the project root.
 */
function toBundlerConfig(functions: Record<string, TomlFunctionsConfig>, root: string): ZisiConfig {
  const result: ZisiConfig = {};
  for (const [glob, settings] of Object.entries(functions)) {
    for (const key of Object.keys(settings)) {
      if (!KNOWN.has(key)) console.warn(`netlify.toml: [functions] ${key} is ignored by npm start`);
    }
    result[glob] = {
      externalNodeModules: settings.external_node_modules,
      ignoredNodeModules: settings.ignored_node_modules,
      includedFiles: settings.included_files,
      includedFilesBasePath: root,
      nodeBundler: settings.node_bundler as ZisiConfig[string]['nodeBundler'],
      schedule: settings.schedule,
    };
  }
  return result;
}

export async function readSiteConfig(root: string): Promise<SiteConfig> {
  const resolved = await resolveConfig({
    repositoryRoot: root,
    cwd: root,
    offline: true,
    mode: 'cli',
    context: platformValue('CONTEXT') ?? 'production',
  });
  const config = resolved.config as {
    build: { publish?: string };
    functionsDirectory?: string;
    functions?: Record<string, TomlFunctionsConfig>;
    database?: { migrations?: { path?: string } };
  };
  return {
    root,
    configPath: resolved.configPath as string | undefined,
    publishDir: config.build.publish ?? root,
    functionsDir: config.functionsDirectory,
    functions: toBundlerConfig(config.functions ?? {}, root),
    migrationsDir: config.database?.migrations?.path,
  };
}
