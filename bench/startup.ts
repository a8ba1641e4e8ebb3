/**
 * The bench's start-up figures: `npm start` (`node scripts/serve.ts`) on a fresh clone of this
 * repository (its committed HEAD), from the command to the first 200 of `/`, three ways: the first
 * start (no dist/, nothing compiled, a new database), a restart with nothing changed, and a restart
 * after a price edit in content/sessions/private.md (whose new price must then be on the home
 * page). The clone's node_modules is the project's own, hard-linked as `npm ci` would lay it out,
 * without Astro's and Vite's caches. Each start's own step times ("Built the site in 6.1 s") are
 * kept beside it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StartupRun {
  /** Seconds from the command to the first 200 of `/`. */
  firstStartS: number;
  restartS: number;
  editedRestartS: number;
  /** Each start's steps as it printed them ("Built the site": 6.1). */
  steps: Record<string, number>[];
}

export interface StartupReport {
  runs: StartupRun[];
  median: { firstStartS: number; restartS: number; editedRestartS: number };
  command: string;
}

const PRICE_FILE = join('content', 'sessions', 'private.md');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function sh(command: string, args: string[], cwd?: string) {
  const run = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${run.stderr}`);
}

/** Starts the clone's `npm start`, times it to the first 200 of `/` (with `expect` in it), stops it. */
async function timedStart(clone: string, port: number, expect?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port) };
  for (const name of ['NETLIFY_DB_URL', 'SITE_URL', 'URL', 'LOCAL_DB_DIR', 'MAIL_OUTBOX_DIR']) {
    delete env[name];
  }
  const started = performance.now();
  const child = spawn(process.execPath, ['scripts/serve.ts'], {
    cwd: clone,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise((done) => child.once('exit', done));
  let seconds: number | undefined;
  try {
    while (seconds === undefined) {
      if (child.exitCode !== null) throw new Error(`npm start ended:\n${output.slice(-2000)}`);
      if (performance.now() - started > 600_000) throw new Error('no answer within 10 minutes');
      const answer = await fetch(`http://127.0.0.1:${port}/`, {
        signal: AbortSignal.timeout(5_000),
      }).catch(() => undefined);
      if (answer?.status === 200) {
        seconds = (performance.now() - started) / 1000;
        const page = await answer.text();
        if (expect && !page.includes(expect)) throw new Error(`/ does not show ${expect}`);
      } else {
        await answer?.body?.cancel();
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  const steps: Record<string, number> = {};
  for (const [, name, value] of output.matchAll(/^(\S.*) in ([\d.]+) s$/gm)) {
    steps[name!] = Number(value);
  }
  return { seconds, steps };
}

export async function benchStartup(options: {
  root: string;
  port: number;
  runs: number;
  log?: (line: string) => void;
}): Promise<StartupReport> {
  const log = options.log ?? console.log;
  const runs: StartupRun[] = [];
  for (let run = 1; run <= options.runs; run++) {
    const scratch = await mkdtemp(join(tmpdir(), 'studio-bench-startup-'));
    const clone = join(scratch, 'clone');
    try {
      sh('git', ['clone', '--quiet', options.root, clone]);
      sh('cp', ['-al', join(options.root, 'node_modules'), join(clone, 'node_modules')]);
      for (const cache of ['.astro', '.vite', '.cache']) {
        await rm(join(clone, 'node_modules', cache), { recursive: true, force: true });
      }
      const first = await timedStart(clone, options.port);
      const again = await timedStart(clone, options.port);
      const file = join(clone, PRICE_FILE);
      const text = await readFile(file, 'utf8');
      const price = Number(/^price: (\d+)$/m.exec(text)?.[1]) + 1;
      await writeFile(file, text.replace(/^price: \d+$/m, `price: ${price}`));
      const edited = await timedStart(clone, options.port, `$${price}`);
      runs.push({
        firstStartS: first.seconds,
        restartS: again.seconds,
        editedRestartS: edited.seconds,
        steps: [first.steps, again.steps, edited.steps],
      });
      log(
        `  run ${run}/${options.runs}: first start ${first.seconds.toFixed(1)} s, restart ${again.seconds.toFixed(1)} s, after a price edit ${edited.seconds.toFixed(1)} s`,
      );
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  return {
    runs,
    median: {
      firstStartS: median(runs.map((r) => r.firstStartS)),
      restartS: median(runs.map((r) => r.restartS)),
      editedRestartS: median(runs.map((r) => r.editedRestartS)),
    },
    command: 'node scripts/serve.ts (npm start) in a fresh clone, until GET / answers 200',
  };
}
