/**
 * The functions, bundled by Netlify's own bundler (`@netlify/zip-it-and-ship-it`, the one a
 * Netlify build runs, with the `[functions]` settings of netlify.toml) into the very zips a deploy
 * uploads, then unzipped into `.netlify/functions-serve/<name>/`.
 *
 * A Functions v2 zip holds:
 *   ___netlify-entry-point.mjs   `export const handler = bootstrap.getLambdaHandler('./functions/x.mjs')`
 *   ___netlify-bootstrap.mjs     Netlify's runtime: turns an AWS Lambda streaming event into a
 *                                `Request` and a `Context`, calls the user module, streams back
 *   ___netlify-telemetry.mjs     its OpenTelemetry loader
 *   ___netlify-metadata.json     the bootstrap's version
 *   functions/x.mjs              the user module: our function and src/ compiled by esbuild, with
 *                                its npm imports left as imports
 *   node_modules/...             exactly the packages those imports need (traced by nft)
 *   content/...                  the `included_files`
 *
 * The bundling takes seconds, so its result is kept: a later start reuses the unzipped bundles
 * when no file the bundler read (its `inputs`, the included files, netlify.toml, the lockfile)
 * has changed since, and bundles again otherwise.
 *
 * It runs in a child process (this file run as a script): importing the bundler also loads
 * Netlify's function runtime (`@netlify/serverless-functions-api`, to find its bootstrap file),
 * which on import defines the `Netlify` global and wraps `fetch` and `http.request` for its own
 * telemetry. That belongs in a Lambda, not in the server; the child also takes the bundler's
 * memory with it when it exits.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import extractZip from 'extract-zip';
import type { ExtendedRoute, FunctionResult, Route } from '@netlify/zip-it-and-ship-it';
import { readSiteConfig, type SiteConfig } from './netlify-config.ts';

export interface Bundle {
  name: string;
  /** The unzipped bundle, as Netlify unpacks it into /var/task. */
  directory: string;
  /** The user module inside it, e.g. `functions/send-email.mjs`. */
  userModule: string;
  runtimeAPIVersion: number;
  routes: ExtendedRoute[];
  excludedRoutes: Route[];
  schedule?: string;
  invocationMode?: string;
}

interface Stamp {
  key: string;
  files: Record<string, string>;
  bundles: Bundle[];
}

const require = createRequire(import.meta.url);
const BUNDLER_VERSION: string = require('@netlify/zip-it-and-ship-it/package.json').version;

async function fingerprint(file: string): Promise<string> {
  const info = await stat(file).catch(() => undefined);
  return info ? `${info.size}:${info.mtimeMs}` : 'missing';
}

async function fingerprints(files: Iterable<string>): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  await Promise.all(
    [...new Set(files)].map(async (file) => (result[file] = await fingerprint(file))),
  );
  return result;
}

async function unchanged(files: Record<string, string>): Promise<boolean> {
  const now = await fingerprints(Object.keys(files));
  return Object.entries(files).every(([file, print]) => now[file] === print);
}

/**
 * The path of the user module inside a v2 bundle, read from the entry point the bundler wrote
 * (the one place that names it). A different entry point means a bundler this server does not
 * know: stop, rather than guess.
 */
async function userModuleOf(directory: string, entryFilename: string, name: string) {
  const entry = await readFile(join(directory, entryFilename), 'utf8');
  const path = /getLambdaHandler\(\s*(['"])(\.\/[^'"]+)\1\s*\)/.exec(entry)?.[2];
  if (!path || !existsSync(join(directory, path))) {
    throw new Error(
      `${name}: the bundle's entry point (${entryFilename}) does not name a Functions v2 module ` +
        `this server can run; @netlify/zip-it-and-ship-it ${BUNDLER_VERSION} may have changed it`,
    );
  }
  return path.slice(2);
}

/** Whether a process of this machine still runs (signal 0 checks without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const stampFileOf = (root: string) => join(root, '.netlify', 'functions-serve', 'bundles.json');

/** Bundles (or reuses the bundles of) every function in the functions folder, in a child process. */
export async function bundleFunctions(site: SiteConfig): Promise<Bundle[]> {
  if (!site.functionsDir || !existsSync(site.functionsDir)) return [];
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), site.root], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', fail);
    child.once('exit', done);
  });
  if (code !== 0) throw new Error('Bundling the functions failed (see above)');
  const stamp = JSON.parse(await readFile(stampFileOf(site.root), 'utf8')) as Stamp;
  return stamp.bundles;
}

/**
 * Two servers of one project starting at once (the browser tests and a bench, say) must not
 * unzip into the same folders at the same time: one bundles, the other waits and reuses. The
 * lock names the process holding it, so a lock left by a start that was killed is taken over at
 * once rather than after it has aged.
 */
async function withLock(root: string, work: () => Promise<void>): Promise<void> {
  const lock = join(root, '.netlify', 'functions-serve.lock');
  const holder = join(lock, 'pid');
  await mkdir(join(root, '.netlify'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(holder, String(process.pid));
      break;
    } catch {
      const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? 0);
      const pid = Number(await readFile(holder, 'utf8').catch(() => ''));
      if (age > 300_000 || (pid > 0 && !alive(pid)))
        await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by another start`);
      else await new Promise((done) => setTimeout(done, 250));
    }
  }
  try {
    await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * What a deploy does with the functions folder: Netlify's bundler zips each function with the
 * `[functions]` settings of netlify.toml into `zipsDir`, and each zip is unpacked into
 * `<unpackDir>/<name>` as Netlify unpacks it into /var/task. The production-bundle test
 * (tests/fixtures/bundles.ts) bundles through here too, so it proves what this server runs.
 */
export async function zipAndUnpack(
  site: SiteConfig,
  zipsDir: string,
  unpackDir: string,
): Promise<{ result: FunctionResult; directory: string }[]> {
  if (!site.functionsDir) return [];
  const { zipFunctions } = await import('@netlify/zip-it-and-ship-it');
  const results = await zipFunctions([site.functionsDir], zipsDir, {
    basePath: site.root,
    repositoryRoot: site.root,
    config: site.functions,
  });
  const unpacked = [];
  for (const result of results) {
    const directory = join(unpackDir, result.name);
    // extract-zip refuses entries that would land outside `dir`.
    await extractZip(result.path, { dir: resolve(directory) });
    unpacked.push({ result, directory });
  }
  return unpacked;
}

async function bundleHere(site: SiteConfig): Promise<void> {
  const { root, functionsDir } = site;
  if (!functionsDir) return;
  const { listFunctions } = await import('@netlify/zip-it-and-ship-it');
  const serveDir = join(root, '.netlify', 'functions-serve');
  const stampFile = stampFileOf(root);
  const listed = await listFunctions([functionsDir], {
    basePath: root,
    config: site.functions,
    parseISC: true,
  });
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        bundler: BUNDLER_VERSION,
        config: site.functions,
        functions: listed.map((f) => [f.name, f.mainFile]).sort(),
      }),
    )
    .digest('hex');

  const previous = await readFile(stampFile, 'utf8')
    .then((text) => JSON.parse(text) as Stamp)
    .catch(() => undefined);
  if (
    previous?.key === key &&
    previous.bundles.every((b) => existsSync(join(b.directory, b.userModule))) &&
    (await unchanged(previous.files))
  ) {
    return;
  }

  const started = performance.now();
  console.log(`Bundling ${listed.length} functions with @netlify/zip-it-and-ship-it...`);
  await rm(serveDir, { recursive: true, force: true });
  // The zips are made outside the project, so the bundler's file tracing never meets them.
  const zips = await mkdtemp(join(tmpdir(), 'studio-functions-'));
  try {
    const unpacked = await zipAndUnpack(site, zips, serveDir);
    const bundles: Bundle[] = [];
    const inputs: string[] = [];
    for (const { result, directory } of unpacked) {
      inputs.push(...(result.inputs ?? []), ...(result.includedFiles ?? []));
      const runtimeAPIVersion = result.runtimeAPIVersion ?? 1;
      bundles.push({
        name: result.name,
        directory,
        userModule:
          runtimeAPIVersion === 2
            ? await userModuleOf(directory, result.entryFilename, result.name)
            : result.entryFilename,
        runtimeAPIVersion,
        routes: result.routes ?? [],
        excludedRoutes: result.excludedRoutes ?? [],
        schedule: result.schedule,
        invocationMode: result.invocationMode,
      });
    }
    const watched = [
      ...inputs,
      ...listed.map((f) => f.mainFile),
      ...(site.configPath ? [site.configPath] : []),
      join(root, 'package-lock.json'),
    ];
    const stamp: Stamp = { key, files: await fingerprints(watched), bundles };
    await writeFile(stampFile, `${JSON.stringify(stamp, null, 1)}\n`);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`Bundled ${bundles.map((b) => b.name).join(', ')} in ${seconds} s`);
  } finally {
    await rm(zips, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  try {
    const site = await readSiteConfig(resolve(process.argv[2] ?? '.'));
    await withLock(site.root, () => bundleHere(site));
  } catch (error) {
    console.error((error as Error)?.message ?? error);
    process.exit(1);
  }
}
