/**
 * A throwaway PostgreSQL server for the tests: Debian's PostgreSQL (the server Netlify Database
 * and any self-hosted install run), a fresh cluster in a temporary folder on a free port of
 * 127.0.0.1, trust authentication, no fsync, removed again when the tests end, fail or are
 * interrupted. `node scripts/postgres.ts` prints where the binaries are (installing them as
 * root when missing, like scripts/chromium.ts does for Chromium).
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresBinaries {
  /** The folder holding initdb, pg_ctl and postgres. */
  bin: string;
  version: string;
}

export interface PostgresServer {
  host: '127.0.0.1';
  port: number;
  /** The temporary folder: the cluster (`data/`), its log and its unix socket. */
  dir: string;
  version: string;
  /** A connection string for `database` (default `postgres`) as the `postgres` superuser. */
  url(database?: string): string;
  stop(): Promise<void>;
}

const DEBIAN = '/usr/lib/postgresql';
const INSTALL_HINT =
  "No PostgreSQL server for the function tests: install Debian's package (as root: apt-get install postgresql) or set POSTGRES_BIN to the folder holding initdb, pg_ctl and postgres.";

/** `POSTGRES_BIN`, else the newest of Debian's /usr/lib/postgresql/<version>/bin. */
export function findPostgres(): PostgresBinaries | undefined {
  const has = (bin: string) =>
    ['initdb', 'pg_ctl', 'postgres'].every((n) => existsSync(join(bin, n)));
  const own = process.env.POSTGRES_BIN;
  if (own) return has(own) ? { bin: own, version: versionOf(own) } : undefined;
  if (!existsSync(DEBIAN)) return undefined;
  const versions = readdirSync(DEBIAN)
    .filter((name) => /^\d+$/.test(name) && has(join(DEBIAN, name, 'bin')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? { bin: join(DEBIAN, versions[0], 'bin'), version: versions[0] } : undefined;
}

function versionOf(bin: string): string {
  const run = spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' });
  return /(\d+)(\.\d+)?/.exec(run.stdout ?? '')?.[1] ?? 'unknown';
}

/** Finds PostgreSQL, installing Debian's package when running as root; throws one line if not. */
export function ensurePostgres(): PostgresBinaries {
  const found = findPostgres();
  if (found) return found;
  if (process.getuid?.() === 0 && !process.env.POSTGRES_BIN && existsSync('/usr/bin/apt-get')) {
    console.log("No PostgreSQL found: installing Debian's postgresql package...");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'postgresql'], {
      stdio: 'inherit',
      env,
    });
    const installed = findPostgres();
    if (installed) return installed;
  }
  throw new Error(INSTALL_HINT);
}

/** A port nothing listens on at 127.0.0.1 just now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root. As root the cluster belongs to Debian's `postgres` user and
 * every command runs as that user through `runuser`; otherwise it runs as whoever runs the tests.
 */
function runner(): {
  command(bin: string, args: string[]): [string, string[]];
  owner?: [number, number];
} {
  if (process.getuid?.() !== 0) return { command: (bin, args) => [bin, args] };
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      'Running as root, PostgreSQL needs the `postgres` user to run as (Debian creates it with the postgresql package).',
    );
  }
  // util-linux's runuser sits in /usr/sbin, which a root shell of a CI runner may not have in PATH.
  const runuser =
    ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((path) => existsSync(path)) ??
    'runuser';
  return {
    command: (bin, args) => [runuser, ['-u', 'postgres', '--', bin, ...args]],
    owner: [Number(uid.stdout), Number(gid.stdout)],
  };
}

function failed(what: string, run: SpawnSyncReturns<string>): Error {
  const output = `${run.stderr ?? ''}${run.stdout ?? ''}`.trim().split('\n').slice(-5).join('\n');
  return new Error(
    `PostgreSQL ${what} failed (${run.error?.message ?? `exit ${run.status}`}): ${output}`,
  );
}

/** Starts a fresh cluster; `stop()` (or the process ending, even by Ctrl-C) removes it. */
export async function startPostgres(binaries = ensurePostgres()): Promise<PostgresServer> {
  const { command, owner } = runner();
  const dir = mkdtempSync(join(tmpdir(), 'pilates-pg-'));
  if (owner) chownSync(dir, owner[0], owner[1]);
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const run = (name: string, args: string[]) => {
    const [bin, argv] = command(join(binaries.bin, name), args);
    // `cwd: dir`: the postgres user may not be allowed into the folder the tests run from.
    return spawnSync(bin, argv, { encoding: 'utf8', cwd: dir });
  };

  let running = false;
  const removeSync = () => {
    if (running) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    running = false;
    rmSync(dir, { recursive: true, force: true });
  };
  // The 'exit' event covers failures and process.exit(); a signal ends the process without it,
  // so on one the cluster is removed first and the signal then does what it would have done.
  const onExit = () => removeSync();
  const onSignal = (signal: NodeJS.Signals) => {
    removeSync();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  process.once('exit', onExit);
  for (const signal of signals) process.once(signal, onSignal);
  const forget = () => {
    process.off('exit', onExit);
    for (const signal of signals) process.off(signal, onSignal);
  };

  try {
    const init = run('initdb', [
      ...['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C'],
      ...['--no-sync', '--no-instructions'],
    ]);
    if (init.status !== 0) throw failed('initdb', init);
    // Only this machine, only through 127.0.0.1 or the socket inside the temporary folder.
    await writeFile(
      join(data, 'pg_hba.conf'),
      'local all all trust\nhost all all 127.0.0.1/32 trust\n',
    );
    let port = 0;
    for (let attempt = 1; !running; attempt += 1) {
      port = await freePort();
      appendFileSync(
        join(data, 'postgresql.conf'),
        [
          '',
          `port = ${port}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${dir}'`,
          // A throwaway cluster: nothing needs to survive a crash of this machine.
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          // Parallel test files, each with its own pools, plus the concurrency tests' instances.
          'max_connections = 300',
          'shared_buffers = 64MB',
          '',
        ].join('\n'),
      );
      const start = run('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
      if (start.status === 0) running = true;
      // Another program took the port between our check and the start: try another.
      else if (attempt >= 3) {
        const tail = await readFile(log, 'utf8').catch(() => '');
        throw new Error(
          `${failed('start', start).message}\n${tail.split('\n').slice(-5).join('\n')}`,
        );
      }
    }
    const server: PostgresServer = {
      host: '127.0.0.1',
      port,
      dir,
      version: binaries.version,
      url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
      async stop() {
        forget();
        if (running) {
          const [bin, argv] = command(join(binaries.bin, 'pg_ctl'), [
            '-D',
            data,
            '-m',
            'fast',
            '-w',
            'stop',
          ]);
          await new Promise((resolve) =>
            spawn(bin, argv, { cwd: dir, stdio: 'ignore' }).on('close', resolve),
          );
          running = false;
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return server;
  } catch (error) {
    forget();
    removeSync();
    throw error;
  }
}

if (import.meta.main) {
  try {
    const { bin, version } = ensurePostgres();
    console.log(`PostgreSQL ${version}: ${bin}`);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
