/**
 * What `npm run backup` and `npm run restore` share: where PostgreSQL's own tools are, what kind
 * of backup a file is, and the words about the key that every backup needs beside it (but not
 * next to it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
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

/** A backup file's kind, by its first bytes: pg_dump's custom format, or a gzipped tarball. */
export async function backupKind(file: string): Promise<'dump' | 'folder' | undefined> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(5);
    await handle.read(head, 0, 5, 0);
    if (head.toString('ascii') === 'PGDMP') return 'dump';
    if (head[0] === 0x1f && head[1] === 0x8b) return 'folder';
    return undefined;
  } finally {
    await handle.close();
  }
}

export const KEY_WORDS =
  'The health information in it is encrypted: it reads back only with WAIVER_ENCRYPTION_KEY ' +
  '(and any WAIVER_ENCRYPTION_OLD_KEYS it was sealed with). Keep a copy of the key, but never in ' +
  'the same place as the backups: whoever has both reads everything.';
