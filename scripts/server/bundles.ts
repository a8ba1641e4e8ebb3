/**
 * The functions as `npm start` runs them: each file of the functions folder compiled from source
 * by esbuild into one ES module (`.netlify/start/functions-<id>/<name>.mjs`), its own code and
 * `src/` bundled in, its npm imports left as imports that resolve to the project's
 * `node_modules`. All 26 take about a second; a start reuses them while no file they were compiled
 * from has changed (the files esbuild read, by content).
 *
 * What Netlify reads from each function's source (its `config`: paths, methods, excluded paths,
 * whether static files come first, its schedule; whether it is a v2 function) comes from Netlify's
 * own bundler, `listFunctions` of `@netlify/zip-it-and-ship-it`, as a deploy reads it. It runs in
 * a child process (this file run as a script), because importing the bundler also loads Netlify's
 * function runtime, which defines the `Netlify` global and wraps `fetch` and `http.request` for
 * its own telemetry; its listing is kept too, while the functions folder and netlify.toml are
 * unchanged.
 *
 * The zips a deploy uploads (Netlify's bundler, with its traced `node_modules` and
 * `included_files`) are made and run by the bundle tests (tests/bundles), not here.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtendedRoute, Route } from '@netlify/zip-it-and-ship-it';
import { readSiteConfig, type SiteConfig } from './netlify-config.ts';
import { step } from './progress.ts';

/** A function as Netlify's bundler lists it. */
export interface ListedFunction {
  name: string;
  /** Its source file (absolute). */
  mainFile: string;
  runtimeAPIVersion: number;
  routes: ExtendedRoute[];
  excludedRoutes: Route[];
  schedule?: string;
  invocationMode?: string;
}

export interface Bundle extends ListedFunction {
  /** The compiled module (absolute), whose default export is the handler. */
  file: string;
}

interface Stamp {
  /** The listing's key: the bundler's version, `[functions]` and every file of the folder. */
  listKey: string;
  listed: ListedFunction[];
  compiled?: {
    key: string;
    /** The folder of the compiled modules, relative to the project. */
    directory: string;
    /** Every file esbuild read (relative to the project) and its content's hash. */
    inputs: Record<string, string>;
  };
}

const require = createRequire(import.meta.url);
const BUNDLER_VERSION: string = require('@netlify/zip-it-and-ship-it/package.json').version;
const ESBUILD_VERSION: string = require('esbuild/package.json').version;
/** Changes when the compile's options below do. */
const COMPILE_OPTIONS_VERSION = 1;

const startDirOf = (root: string) => join(root, '.netlify', 'start');
const stampFileOf = (root: string) => join(startDirOf(root), 'functions.json');

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

async function hashOf(file: string): Promise<string> {
  return readFile(file)
    .then(sha256)
    .catch(() => 'missing');
}

/** Every file under `directory` (no `node_modules`), relative to `root`, with its content's hash. */
async function folderHashes(root: string, directory: string): Promise<[string, string][]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !relative(directory, file).split(/[\\/]/).includes('node_modules'));
  const hashed = await Promise.all(
    files.map(async (file) => [relative(root, file), await hashOf(file)] as [string, string]),
  );
  return hashed.sort(([a], [b]) => a.localeCompare(b));
}

async function listKeyOf(site: SiteConfig): Promise<string> {
  return sha256(
    JSON.stringify({
      bundler: BUNDLER_VERSION,
      config: site.functions,
      files: await folderHashes(site.root, site.functionsDir!),
      netlifyToml: site.configPath ? await hashOf(site.configPath) : undefined,
    }),
  );
}

async function readStamp(root: string): Promise<Stamp | undefined> {
  return readFile(stampFileOf(root), 'utf8')
    .then((text) => JSON.parse(text) as Stamp)
    .catch(() => undefined);
}

/** Written whole or not at all: a start reading it meanwhile sees the old one or the new one. */
async function writeStamp(root: string, stamp: Stamp): Promise<void> {
  const file = stampFileOf(root);
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${JSON.stringify(stamp, null, 1)}\n`);
  await rename(draft, file);
}

/** Netlify's bundler lists the functions, in a child process (see above). */
async function listInChild(site: SiteConfig): Promise<ListedFunction[]> {
  const out = join(startDirOf(site.root), `listing.${process.pid}.json`);
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), site.root, out], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', fail);
    child.once('exit', done);
  });
  try {
    if (code !== 0) throw new Error('Listing the functions failed (see above)');
    return JSON.parse(await readFile(out, 'utf8')) as ListedFunction[];
  } finally {
    await rm(out, { force: true });
  }
}

async function listHere(site: SiteConfig): Promise<ListedFunction[]> {
  const { listFunctions } = await import('@netlify/zip-it-and-ship-it');
  const listed = await listFunctions([site.functionsDir!], {
    basePath: site.root,
    config: site.functions,
    parseISC: true,
  });
  return listed
    .map((f) => ({
      name: f.name,
      mainFile: f.mainFile,
      runtimeAPIVersion: f.runtimeAPIVersion ?? 1,
      routes: f.routes ?? [],
      excludedRoutes: f.excludedRoutes ?? [],
      schedule: f.schedule,
      invocationMode: (f as { invocationMode?: string }).invocationMode,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
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

async function compiledStillFresh(root: string, stamp: Stamp, key: string): Promise<boolean> {
  const compiled = stamp.compiled;
  if (compiled?.key !== key) return false;
  const directory = join(root, compiled.directory);
  if (!stamp.listed.every((f) => existsSync(join(directory, `${f.name}.mjs`)))) return false;
  const now = await Promise.all(
    Object.keys(compiled.inputs).map(async (file) => [file, await hashOf(join(root, file))]),
  );
  return now.every(([file, hash]) => compiled.inputs[file!] === hash);
}

/**
 * Compiles the functions into a folder of its own, then moves it into place: another start of
 * the same project (the browser tests beside a bench, say) never sees a half-written folder.
 */
async function compile(root: string, listed: ListedFunction[], key: string) {
  const { build } = await import('esbuild');
  const startDir = startDirOf(root);
  const draft = join(startDir, `draft-${process.pid}-${randomBytes(4).toString('hex')}`);
  const result = await build({
    absWorkingDir: root,
    entryPoints: listed.map((f) => ({ in: f.mainFile, out: f.name })),
    outdir: draft,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    // Error names reach the log (`the function threw TypeError`): keep every class's own.
    keepNames: true,
    metafile: true,
    logLevel: 'warning',
  });
  // Named by what it holds: starts that compiled the same sources share one folder, and a folder
  // is never replaced under a server that is loading from it.
  const outputs = Object.keys(result.metafile.outputs).sort();
  const contents = await Promise.all(outputs.map((file) => hashOf(join(root, file))));
  const id = sha256(
    JSON.stringify(outputs.map((file, i) => [relative(draft, join(root, file)), contents[i]])),
  );
  const directory = join(startDir, `functions-${id.slice(0, 16)}`);
  await rename(draft, directory).catch(async (error: unknown) => {
    await rm(draft, { recursive: true, force: true });
    if (!existsSync(directory)) throw error;
  });
  const inputs: Record<string, string> = {};
  await Promise.all(
    Object.keys(result.metafile.inputs).map(async (file) => {
      inputs[file] = await hashOf(join(root, file));
    }),
  );
  // Earlier compiles (a server loads its modules once, at its start), and drafts of starts that
  // were killed halfway.
  for (const entry of await readdir(startDir)) {
    const old = join(startDir, entry);
    const draftOf = Number(/^draft-(\d+)-/.exec(entry)?.[1]);
    const stale =
      (entry.startsWith('functions-') &&
        old !== directory &&
        Date.now() - ((await stat(old).catch(() => undefined))?.mtimeMs ?? 0) > 600_000) ||
      (draftOf > 0 && !alive(draftOf));
    if (stale) await rm(old, { recursive: true, force: true });
  }
  return { key, directory: relative(root, directory), inputs };
}

export interface FunctionsPrepared {
  bundles: Bundle[];
  /** What was done: `listed` (Netlify's bundler read the configs), `compiled`, or nothing. */
  work: ('listed' | 'compiled')[];
}

/** Lists and compiles (or reuses the listing and modules of) every function in the folder. */
export async function prepareFunctions(site: SiteConfig): Promise<FunctionsPrepared> {
  if (!site.functionsDir || !existsSync(site.functionsDir)) return { bundles: [], work: [] };
  const { root } = site;
  await mkdir(startDirOf(root), { recursive: true });
  const work: FunctionsPrepared['work'] = [];
  const listKey = await listKeyOf(site);
  let stamp = await readStamp(root);
  if (stamp?.listKey !== listKey) {
    const listed = await step(
      "Reading the functions' settings (Netlify's bundler)",
      () => listInChild(site),
      (found) => `Read the settings of ${found.length} functions`,
    );
    stamp = { listKey, listed };
    work.push('listed');
  }
  for (const f of stamp.listed) {
    if (f.runtimeAPIVersion !== 2) {
      throw new Error(`${f.name}: npm start runs Functions v2 only (a default export)`);
    }
  }
  const compileKey = sha256(
    JSON.stringify({
      esbuild: ESBUILD_VERSION,
      options: COMPILE_OPTIONS_VERSION,
      node: process.versions.node.split('.')[0],
      functions: stamp.listed.map((f) => [f.name, relative(root, f.mainFile)]),
    }),
  );
  if (!(await compiledStillFresh(root, stamp, compileKey))) {
    const { listed } = stamp;
    stamp.compiled = await step(
      `Compiling ${listed.length} functions (esbuild)`,
      () => compile(root, listed, compileKey),
      () => `Compiled ${listed.length} functions`,
    );
    work.push('compiled');
  }
  if (work.length > 0) await writeStamp(root, stamp);
  const directory = join(root, stamp.compiled!.directory);
  return {
    bundles: stamp.listed.map((f) => ({ ...f, file: join(directory, `${f.name}.mjs`) })),
    work,
  };
}

if (import.meta.main) {
  try {
    const site = await readSiteConfig(resolve(process.argv[2] ?? '.'));
    await writeFile(process.argv[3]!, JSON.stringify(await listHere(site)));
  } catch (error) {
    console.error((error as Error)?.message ?? error);
    process.exit(1);
  }
}
