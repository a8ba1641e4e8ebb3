/**
 * `npm start`'s build of the site (`astro build` into `dist/`), skipped when nothing it is built
 * from has changed since the last one: the same files (by content) under `src/`, `content/` and
 * `public/`, the same `astro.config.mjs`, `tsconfig.json`, `package.json`, lockfile and
 * `netlify.toml`, the same settings a build reads, the same day (which events are still to come is
 * decided when the site is built: a build is kept until the day ends, UTC), and a `dist/` that
 * nothing else has rebuilt or changed since. Its record is `.netlify/start/site.json`.
 *
 * A build that fails keeps the last good one, as a Netlify deploy keeps the last good site: a
 * mistake in content/ stops Astro before it touches `dist/`, so the site built last is served
 * as it was, and the functions read the content it was built from (a copy kept at each good
 * build, `.netlify/start/last-good/`), while the log says what is wrong in her words. With no good
 * build to serve, the start fails and says so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ON_DEMAND_ROUTES } from '../../src/integrations/on-demand-routes.ts';
import { step } from './progress.ts';

const FOLDERS = ['src', 'content', 'public'];
const FILES = [
  'astro.config.mjs',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'netlify.toml',
];
/**
 * The environment a build reads (astro.config.mjs, src/integrations, src/lib/clock.ts through
 * src/server/platform/settings.ts), and Astro's and Vite's own.
 */
const BUILD_SETTINGS = [
  'SITE_URL',
  'URL',
  'DEPLOY_PRIME_URL',
  'DEPLOY_URL',
  'CONTEXT',
  'NETLIFY',
  'BUILD_NOW',
  'HOST',
  'PORT',
  'NODE_ENV',
];
const BUILD_PREFIXES = /^(ASTRO_|PUBLIC_|VITE_)/;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const stampFileOf = (root: string) => join(root, '.netlify', 'start', 'site.json');
const lastGoodOf = (root: string) => join(root, '.netlify', 'start', 'last-good');

async function filesUnder(directory: string): Promise<string[]> {
  if (!existsSync(directory)) return [];
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((e) => join(e.parentPath, e.name));
}

/** What the build is made from: a hash of its inputs' contents, its settings and its day. */
export async function buildKey(root: string, env: NodeJS.ProcessEnv = process.env) {
  const files = [
    ...(await Promise.all(FOLDERS.map((folder) => filesUnder(join(root, folder))))).flat(),
    ...FILES.map((file) => join(root, file)),
  ];
  const hashed = await Promise.all(
    files.map(async (file) => {
      const content = await readFile(file).catch(() => undefined);
      return [relative(root, file), content ? sha256(content) : 'missing'];
    }),
  );
  hashed.sort(([a], [b]) => a!.localeCompare(b!));
  const settings = Object.keys(env)
    .filter((name) => BUILD_SETTINGS.includes(name) || BUILD_PREFIXES.test(name))
    .sort()
    .map((name) => [name, env[name]]);
  const day = new Date().toISOString().slice(0, 10);
  return sha256(JSON.stringify({ files: hashed, settings, day }));
}

/** The published folder as it is on disk: each file's path, size and time of change. */
async function folderPrint(directory: string): Promise<string> {
  const files = await filesUnder(directory);
  const prints = await Promise.all(
    files.map(async (file) => {
      const info = await stat(file);
      return `${relative(directory, file)}:${info.size}:${info.mtimeMs}`;
    }),
  );
  return sha256(prints.sort().join('\n'));
}

/** The build failed, and the last good one is served: what is wrong, and what is served. */
export interface LastGood {
  kind: 'last-good';
  /** The build's own lines saying what is wrong (a content mistake: file, line, field, what to write). */
  problems: string[];
  /** When the build served was made. */
  builtAt: string;
  /** The content it was built from, for the functions to read (CONTENT_DIR). */
  contentDir: string;
}

export interface SiteBuild {
  /**
   * Resolves when the site is ready: `built`, `kept` (nothing changed since the last build), or
   * the last good build when this one failed; rejects when it failed with no good build to serve.
   */
  done: Promise<'built' | 'kept' | LastGood>;
  /** Stops a build under way (its process) and resolves when it has ended. */
  cancel(): Promise<void>;
}

/**
 * Builds the site into `publishDir` unless the last build there was made from the same inputs.
 * Astro's own output (its progress, and any error in the content, naming the file and field)
 * goes to this process's.
 */
export function buildSite(root: string, publishDir: string): SiteBuild {
  let child: ChildProcess | undefined;
  let cancelled = false;
  let said = '';
  const stampFile = stampFileOf(root);
  const done = (async () => {
    const key = await buildKey(root);
    const stamp = await readFile(stampFile, 'utf8')
      .then((text) => JSON.parse(text) as { key: string; dist: string })
      .catch(() => undefined);
    if (
      stamp?.key === key &&
      existsSync(join(publishDir, 'index.html')) &&
      // `astro dev` empties the on-demand pages' function (Netlify's adapter): built again.
      existsSync(join(root, ON_DEMAND_ROUTES)) &&
      stamp.dist === (await folderPrint(publishDir))
    ) {
      console.log('The site is unchanged since its last build: dist/ is served as it is');
      return 'kept' as const;
    }
    // A build that stops halfway leaves no record that a later start could trust.
    await rm(stampFile, { force: true });
    if (cancelled) throw new Error('cancelled');
    const code = await step(
      'Building the site (astro build)',
      () =>
        new Promise<number | null>((resolve, reject) => {
          child = spawn(
            process.execPath,
            [join(root, 'node_modules/astro/bin/astro.mjs'), 'build'],
            {
              cwd: root,
              stdio: ['ignore', 'inherit', 'pipe'],
              env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
            },
          );
          // Passed on as it comes, and kept: the last lines say what stopped a failed build.
          child.stderr?.on('data', (chunk: Buffer) => {
            process.stderr.write(chunk);
            said += chunk.toString('utf8');
            if (said.length > 64_000) said = said.slice(-32_000);
          });
          child.once('error', reject);
          child.once('exit', (exitCode, signal) => resolve(signal ? null : exitCode));
        }),
      (exitCode) => (exitCode === 0 ? 'Built the site' : 'The build stopped'),
    );
    child = undefined;
    if (code !== 0) {
      if (cancelled) throw new Error('cancelled');
      return lastGoodBuild(root, publishDir, said);
    }
    await mkdir(join(root, '.netlify', 'start'), { recursive: true });
    const dist = await folderPrint(publishDir);
    await writeFile(stampFile, JSON.stringify({ key, dist }));
    await keepAsLastGood(root, dist);
    return 'built' as const;
  })();
  return {
    done,
    async cancel() {
      cancelled = true;
      const running = child;
      if (running && running.exitCode === null) {
        const ended = new Promise((resolve) => running.once('exit', resolve));
        running.kill('SIGTERM');
        await ended;
      }
      await done.catch(() => undefined);
    },
  };
}

/** A good build's record, and a copy of the content it was built from. */
async function keepAsLastGood(root: string, dist: string) {
  const folder = lastGoodOf(root);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  if (existsSync(join(root, 'content'))) {
    await cp(join(root, 'content'), join(folder, 'content'), { recursive: true });
  }
  await writeFile(
    join(folder, 'build.json'),
    JSON.stringify({ dist, builtAt: new Date().toISOString() }),
  );
}

/** The lines of a failed build's output that say what is wrong (a content mistake's, if any). */
function problemsIn(said: string): string[] {
  const lines = said
    .split('\n')
    // Astro's and Vite's colours and progress marks are not words.
    // eslint-disable-next-line no-control-regex
    .map((line) => line.replace(/\u001b\[[\d;]*m/g, '').trim())
    .filter(Boolean);
  const content = lines.filter((line) => /^content\/\S+(, line \d+)?: /.test(line));
  return content.length > 0 ? content : lines.slice(-5);
}

/**
 * After a failed build: the last good build, when `dist/` is still just as that build left it;
 * otherwise an error saying there is no good build to serve, and why the build failed.
 */
async function lastGoodBuild(root: string, publishDir: string, said: string): Promise<LastGood> {
  const problems = problemsIn(said);
  const folder = lastGoodOf(root);
  const record = await readFile(join(folder, 'build.json'), 'utf8')
    .then((text) => JSON.parse(text) as { dist: string; builtAt: string })
    .catch(() => undefined);
  if (!record || record.dist !== (await folderPrint(publishDir))) {
    throw new Error(
      `the site could not be built, and there is no good build to serve:\n${problems.join('\n')}`,
    );
  }
  return {
    kind: 'last-good',
    problems,
    builtAt: record.builtAt,
    contentDir: join(folder, 'content'),
  };
}
