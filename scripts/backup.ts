/**
 * `npm run backup [-- --out=FILE]`: a backup of the site's database, which `npm run restore`
 * puts back (docs/running.md, "Backups").
 *
 * - `NETLIFY_DB_URL` set (self-hosted, or Netlify Database through its connection string):
 *   `pg_dump` in its custom format, every table with its rows (the migrations' record too), then
 *   read back whole with `pg_restore --list`.
 * - The embedded database (`LOCAL_DB_DIR`, `.netlify/db`): its folder, as one gzipped tarball
 *   made by PGlite itself (`dumpDataDir`), with `npm start` stopped (PGlite does not lock its
 *   folder, so two processes must never open it at once).
 *
 * The file is written to `backups/` (made 0700, the file 0600; git ignores it) unless `--out`
 * says where. It holds names, addresses and the encrypted health information: the key is not in
 * it and must be kept elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { readSetting } from '../src/server/platform/settings.ts';
import { KEY_WORDS, pgTool } from './backups.ts';
import { embeddedDirectory, runningEmbedded } from './site-database.ts';

const root = process.cwd();
const args = process.argv.slice(2);
const outArg = args.find((arg) => arg.startsWith('--out='))?.slice('--out='.length);
const unknown = args.filter((arg) => !arg.startsWith('--out='));
if (unknown.length > 0) {
  console.error(`backup: unknown argument ${unknown.join(' ')} (use --out=FILE)`);
  process.exit(2);
}

const url = readSetting('NETLIFY_DB_URL');
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const out = resolve(outArg ?? join('backups', `studio-${stamp}${url ? '.dump' : '.tar.gz'}`));
mkdirSync(dirname(out), { recursive: true, mode: 0o700 });

function fail(message: string): never {
  console.error(`backup: ${message}`);
  process.exit(1);
}

if (url) {
  const dump = spawnSync(
    pgTool('pg_dump'),
    ['--format=custom', '--no-owner', '--no-privileges', `--file=${out}`, `--dbname=${url}`],
    { encoding: 'utf8' },
  );
  // pg_dump's own words say what went wrong (a refused login, a server newer than pg_dump);
  // they never hold the password, which it does not print.
  if (dump.status !== 0) fail(`pg_dump failed: ${dump.stderr.trim()}`);
  chmodSync(out, 0o600);
  const list = spawnSync(pgTool('pg_restore'), ['--list', out], { encoding: 'utf8' });
  if (list.status !== 0) fail(`the backup does not read back: ${list.stderr.trim()}`);
  const tables = list.stdout.split('\n').filter((line) => / TABLE DATA /.test(line)).length;
  console.log(
    `backup: wrote ${relative(root, out)} (${Math.ceil(statSync(out).size / 1024)} KB, ${tables} tables with their rows; pg_restore reads it back whole)`,
  );
} else {
  if (await runningEmbedded(root)) {
    fail('npm start is using the embedded database: stop it first, then run npm run backup');
  }
  const directory = embeddedDirectory(root);
  if (!existsSync(join(directory, 'PG_VERSION')))
    fail(`there is no embedded database in ${directory}`);
  const db = await PGlite.create(directory);
  try {
    const tarball = await db.dumpDataDir('gzip');
    writeFileSync(out, Buffer.from(await tarball.arrayBuffer()), { mode: 0o600 });
  } finally {
    await db.close();
  }
  console.log(
    `backup: wrote ${relative(root, out)} (${Math.ceil(statSync(out).size / 1024)} KB), the embedded database in ${relative(root, directory) || '.'}`,
  );
  if (!readSetting('WAIVER_ENCRYPTION_KEY')) {
    console.log('backup: the key is .netlify/waiver-encryption.key: copy it separately.');
  }
}
console.log(`backup: ${KEY_WORDS}`);
