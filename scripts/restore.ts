/**
 * `npm run restore -- FILE`: puts a backup made by `npm run backup` back, into an empty database,
 * then reads every waiver in it as the desk would (its health information opened with the keys
 * given, its records PDF checked against the SHA-256 recorded when it was made). `--check` only
 * reads the site's database so.
 *
 * - A `pg_dump` file goes into the database of `NETLIFY_DB_URL`, which must hold no table yet
 *   (make a new one: a restore never mixes into, or replaces, a database in use), with
 *   `pg_restore` in one transaction: all of it, or nothing.
 * - A tarball of the embedded database becomes the folder `LOCAL_DB_DIR` (`.netlify/db`), which
 *   must not exist yet or be empty.
 *
 * Exit status 0 when everything was restored and every waiver reads; 1 otherwise.
 */
import './source-imports.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { readSetting } from '../src/server/platform/settings.ts';
import { backupKind, KEY_WORDS, pgTool } from './backups.ts';
import { embeddedDirectory, openSiteDatabase } from './site-database.ts';

const root = process.cwd();
const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const files = args.filter((arg) => !arg.startsWith('--'));

function fail(message: string): never {
  console.error(`restore: ${message}`);
  process.exit(1);
}

if (!checkOnly) {
  if (files.length !== 1) fail('name one backup file: npm run restore -- backups/studio-....dump');
  const file = resolve(files[0]!);
  if (!existsSync(file)) fail(`${file} does not exist`);
  const kind = await backupKind(file);
  const url = readSetting('NETLIFY_DB_URL');
  if (kind === 'dump') {
    if (!url)
      fail('a pg_dump backup goes into a PostgreSQL database: set NETLIFY_DB_URL to an empty one');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    client.on('error', () => undefined);
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_tables
        WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    );
    await client.end();
    if (rows[0]!.n > 0) {
      fail(
        `the database of NETLIFY_DB_URL is not empty (${rows[0]!.n} tables): restore into a new, empty database, check it, then point the site at it`,
      );
    }
    const restore = spawnSync(
      pgTool('pg_restore'),
      [
        '--no-owner',
        '--no-privileges',
        '--exit-on-error',
        '--single-transaction',
        `--dbname=${url}`,
        file,
      ],
      { encoding: 'utf8' },
    );
    if (restore.status !== 0)
      fail(`pg_restore failed, nothing was restored: ${restore.stderr.trim()}`);
  } else if (kind === 'folder') {
    if (url)
      fail('this is a backup of the embedded database: run the restore without NETLIFY_DB_URL');
    const directory = embeddedDirectory(root);
    if (existsSync(directory) && readdirSync(directory).length > 0) {
      fail(`${directory} is not empty: move it away (or set LOCAL_DB_DIR to a new folder) first`);
    }
    const db = await PGlite.create({
      dataDir: directory,
      loadDataDir: new Blob([readFileSync(file)]),
    });
    await db.close();
  } else {
    fail(`${file} is not a backup made by npm run backup`);
  }
  console.log(`restore: ${files[0]} restored; reading every waiver back`);
}

// Reading back needs the key; without one a local run would make a new one, which opens nothing.
const { LOCAL_KEY_FILE } = await import('../src/server/platform/crypto.ts');
if (!readSetting('WAIVER_ENCRYPTION_KEY') && !existsSync(resolve(root, LOCAL_KEY_FILE))) {
  console.error(
    `restore: no WAIVER_ENCRYPTION_KEY (nor ${LOCAL_KEY_FILE}): the waivers cannot be read back. Set the key, then run npm run restore -- --check. ${KEY_WORDS}`,
  );
  process.exit(1);
}
const database = await openSiteDatabase(root);
process.env.NETLIFY_DB_URL = database.url;
let status = 1;
try {
  const { readEveryWaiver } = await import('../src/server/waiver/read-back.ts');
  const read = await readEveryWaiver();
  console.log(
    `restore: ${read.waivers} waiver(s) read back with their health information, ${read.pdfs} signed PDF(s) with the SHA-256 recorded when they were made`,
  );
  if (read.unreadable.length > 0) {
    console.error(
      `restore: ${read.unreadable.length} waiver(s) could not be read (a key not given, or damaged): ${read.unreadable.join(', ')}`,
    );
  } else {
    status = 0;
  }
} catch (error) {
  console.error(`restore: the waivers could not be read: ${(error as Error)?.message}`);
} finally {
  const { closeDatabase } = await import('../src/server/platform/db.ts');
  await closeDatabase();
  await database.close();
}
process.exit(status);
