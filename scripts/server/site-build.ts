/**
 * `npm start`'s build of the site (`astro build` into `dist/`), skipped when nothing it is built
 * from has changed since the last one: the same files (by content) under `src/`, `content/` and
 * `public/`, the same `astro.config.mjs`, `tsconfig.json`, `package.json`, lockfile and
 * `netlify.toml`, the same settings a build reads, the same day (which events are still to come is
 * decided when the site is built: a build is kept until the day ends, UTC), and a `dist/` that
 * nothing else has rebuilt or changed since. Its record is `.netlify/start/site.json`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
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

export interface SiteBuild {
  /** Resolves when the site is ready: `built`, or `kept` (nothing changed since the last build). */
  done: Promise<'built' | 'kept'>;
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
              stdio: ['ignore', 'inherit', 'inherit'],
              env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
            },
          );
          child.once('error', reject);
          child.once('exit', (exitCode, signal) => resolve(signal ? null : exitCode));
        }),
      (exitCode) => (exitCode === 0 ? 'Built the site' : 'The build stopped'),
    );
    child = undefined;
    if (code !== 0) throw new Error(cancelled ? 'cancelled' : 'astro build failed (see above)');
    await mkdir(join(root, '.netlify', 'start'), { recursive: true });
    await writeFile(stampFile, JSON.stringify({ key, dist: await folderPrint(publishDir) }));
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
