/**
 * A failed server test leaves nothing running: server tests that fail on purpose
 * (tests/server/leftovers/) run in a runner of their own, every process of it marked by an
 * environment variable, and once the runner has ended no marked process is left: not the
 * runner, not `serve.ts`, not what it started.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { fixtureProject, ROOT } from './harness.ts';

let fixture: Awaited<ReturnType<typeof fixtureProject>>;
let scratch: string;

beforeAll(async () => {
  fixture = await fixtureProject();
  scratch = await mkdtemp(join(tmpdir(), 'studio-leftovers-'));
});
afterAll(async () => {
  await fixture?.remove();
  await rm(scratch, { recursive: true, force: true });
});

/** The processes whose environment holds `mark`. */
function marked(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(mark)) found.push(+entry);
    } catch {
      // Gone already, or not ours.
    }
  }
  return found;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(status(pid));
const status = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};

/** Runs the failing tests of `file` in a runner of their own, in a process group of its own. */
function run(file: string) {
  const mark = `LEFTOVER_MARK=${randomUUID()}`;
  const pidFile = join(scratch, `${file}.pid`);
  const runner = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      'tests/server/leftovers/vitest.config.ts',
      `tests/server/leftovers/${file}`,
    ],
    {
      cwd: ROOT,
      env: {
        // Not this runner's own settings: a runner of its own.
        ...Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !/^(VITEST|TINYPOOL)/.test(name)),
        ),
        [mark.split('=')[0]!]: mark.split('=')[1],
        LEFTOVER_ROOT: fixture.root,
        LEFTOVER_PID_FILE: pidFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let output = '';
  runner.stdout!.on('data', (chunk) => (output += chunk));
  runner.stderr!.on('data', (chunk) => (output += chunk));
  const ended = new Promise<number | null>((done) => runner.once('close', done));
  return { mark, pidFile, runner, ended, output: () => output };
}

/** Waits until no process carries `mark`. */
async function nothingLeft(mark: string) {
  await expect.poll(() => marked(mark), { timeout: 30_000, interval: 200 }).toEqual([]);
}

test('a test that fails with its server running, and a start that outruns its hook, leave nothing running', async () => {
  const failing = run('fails.fixture.ts');
  try {
    expect(await failing.ended, failing.output()).toBe(1);
    expect(failing.output()).toContain('failing on purpose');
    expect(failing.output()).toMatch(/Hook timed out/);
    // The server had started (its test failed after that)...
    const pid = Number(await readFile(failing.pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    // ...and is gone, with all the runner started.
    await nothingLeft(failing.mark);
    expect(alive(pid)).toBe(false);
  } finally {
    for (const pid of marked(failing.mark)) process.kill(pid, 'SIGKILL');
  }
});

test('a runner killed with SIGKILL while its server runs leaves nothing running', async () => {
  const killed = run('killed.fixture.ts');
  try {
    // Once its server is serving, the runner is killed (as a CI job's time limit does).
    const written = () => readFile(killed.pidFile, 'utf8').then(Number, () => 0);
    await expect.poll(written, { timeout: 300_000, interval: 200 }).toBeGreaterThan(0);
    const pid = await written();
    expect(alive(pid)).toBe(true);
    killed.runner.kill('SIGKILL');
    await killed.ended;
    await nothingLeft(killed.mark);
  } finally {
    for (const pid of marked(killed.mark)) process.kill(pid, 'SIGKILL');
  }
});
