/**
 * What `npm run backup` and `npm run restore` share: where PostgreSQL's own tools are, what kind
 * of backup a file is, and the words about the key that every backup needs beside it (but not
 * next to it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readSetting } from '../src/server/platform/settings.ts';

/**
 * `pg_dump` or `pg_restore`: in `POSTGRES_BIN`, else on PATH, else in the newest of Debian's
 * /usr/lib/postgresql/<version>/bin. Throws a sentence saying how to get it.
 */
export function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  const own = readSetting('POSTGRES_BIN');
  if (own) {
    const path = join(own, name);
    if (existsSync(path)) return path;
    throw new Error(`POSTGRES_BIN is set, but ${path} does not exist`);
  }
  if (spawnSync(name, ['--version']).status === 0) return name;
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((version) => existsSync(join(debian, version, 'bin', name)))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(debian, versions[0], 'bin', name);
  throw new Error(
    `${name} was not found: install PostgreSQL's client programs (Debian: apt-get install postgresql-client), or set POSTGRES_BIN to their folder`,
  );
}

/**
 * How `pg_dump` and `pg_restore` reach the database of `url` without its password on their
 * command line, where every user of the machine can read it (`ps`): the connection string
 * without the password as `--dbname`, and the password in their environment (`PGPASSWORD`),
 * which only the same user can read.
 */
export function pgConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(
      'NETLIFY_DB_URL must be a connection string, postgres://user:password@host/database',
    );
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) {
    throw new Error(
      'NETLIFY_DB_URL must be a connection string, postgres://user:password@host/database',
    );
  }
  const password = parsed.password
    ? decodeURIComponent(parsed.password)
    : (parsed.searchParams.get('password') ?? undefined);
  parsed.password = '';
  parsed.searchParams.delete('password');
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (password !== undefined) env.PGPASSWORD = password;
  return { dbname: parsed.href, env };
}

export const KEY_WORDS =
  'It is sealed with WAIVER_ENCRYPTION_KEY: it opens, and its health information reads, only ' +
  'with that key (or the WAIVER_ENCRYPTION_OLD_KEYS it was made with). Keep a copy of the key, ' +
  'but never in the same place as the backups: whoever has both reads everything.';

export interface ToolRun {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs `pg_dump` or `pg_restore` with `input` on its standard input; its output, whole. */
export function runTool(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: Buffer } = {},
): Promise<ToolRun> {
  return new Promise((done, failed) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    // pg_restore stops reading when it fails: its own words say why, not a broken pipe.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input);
    child.on('error', failed);
    child.on('close', (status) => done({ status, stdout: Buffer.concat(out), stderr }));
  });
}
