/**
 * `npm run backup [-- --out=FILE]`: a backup of the site's database, which `npm run restore`
 * puts back (docs/operations.md, "Backups").
 *
 * - `NETLIFY_DB_URL` set (self-hosted, or Netlify Database through its connection string):
 *   `pg_dump` in its custom format, every table with its rows (the migrations' record too), then
 *   read back whole with `pg_restore --list`.
 * - The embedded database (`LOCAL_DB_DIR`, `.netlify/db`): its folder, as one gzipped tarball
 *   made by PGlite itself (`dumpDataDir`), with `npm start` stopped (PGlite does not lock its
 *   folder, so two processes must never open it at once).
 *
 * The file is written to `backups/` (made 0700; git ignores it) unless `--out` says where,
 * sealed whole with a key derived from `WAIVER_ENCRYPTION_KEY` (scripts/backup-seal.ts): what it
 * holds (names, addresses, the health information) reads only with the key, which is not in it
 * and must be kept elsewhere, and `npm run restore` refuses it if a byte of it changed. Nothing
 * unsealed is written to disk, and the file is its owner's alone (0600) from the moment it exists.
 * The database's password goes to `pg_dump` in its environment, never on its command line.
 */
import './source-imports.ts';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { readSetting } from '../src/server/platform/settings.ts';
import { openBackup, sealBackup } from './backup-seal.ts';
import { KEY_WORDS, pgConnection, pgTool, runTool } from './backups.ts';
import { embeddedDirectory, runningEmbedded } from './site-database.ts';

const root = process.cwd();
const args = process.argv.slice(2);
const outArg = args.find((arg) => arg.startsWith('--out='))?.slice('--out='.length);
const unknown = args.filter((arg) => !arg.startsWith('--out='));
if (unknown.length > 0) {
  console.error(`backup: unknown argument ${unknown.join(' ')} (use --out=FILE)`);
  process.exit(2);
}

function fail(message: string): never {
  console.error(`backup: ${message}`);
  process.exit(1);
}

// The backup is sealed with the site's key: without one, a local run would make a new key that
// opens nothing the database holds.
const { LOCAL_KEY_FILE, keyring } = await import('../src/server/platform/crypto.ts');
if (!readSetting('WAIVER_ENCRYPTION_KEY') && !existsSync(resolve(root, LOCAL_KEY_FILE))) {
  fail(
    `no WAIVER_ENCRYPTION_KEY (nor ${LOCAL_KEY_FILE}): set the site's key, which seals the backup`,
  );
}
const keys = keyring();

const url = readSetting('NETLIFY_DB_URL');
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const out = resolve(outArg ?? join('backups', `studio-${stamp}${url ? '.dump' : '.tar.gz'}`));
mkdirSync(dirname(out), { recursive: true, mode: 0o700 });

/** Writes `plain` sealed, under a name of its own made 0600, then moves it into place. */
function writeSealed(plain: Buffer) {
  const draft = `${out}.${process.pid}.tmp`;
  try {
    writeFileSync(draft, sealBackup(plain, keys), { mode: 0o600, flag: 'wx' });
    renameSync(draft, out);
  } finally {
    rmSync(draft, { force: true });
  }
}

/** The file as written, opened again: what a restore will read. */
function readBack(): Buffer {
  const opened = openBackup(readFileSync(out), keys);
  if (!opened.ok) fail(`${relative(root, out)} does not open again: the disk may be failing`);
  return opened.plain;
}

const size = () => `${Math.ceil(statSync(out).size / 1024)} KB`;

if (url) {
  const connection = pgConnection(url);
  const dump = await runTool(
    pgTool('pg_dump'),
    ['--format=custom', '--no-owner', '--no-privileges', `--dbname=${connection.dbname}`],
    { env: connection.env },
  );
  // pg_dump's own words say what went wrong (a refused login, a server newer than pg_dump);
  // they never hold the password, which it does not print.
  if (dump.status !== 0) fail(`pg_dump failed: ${dump.stderr.trim()}`);
  writeSealed(dump.stdout);
  const list = await runTool(pgTool('pg_restore'), ['--list'], { input: readBack() });
  if (list.status !== 0) fail(`the backup does not read back: ${list.stderr.trim()}`);
  const tables = String(list.stdout)
    .split('\n')
    .filter((line) => / TABLE DATA /.test(line)).length;
  console.log(
    `backup: wrote ${relative(root, out)} (${size()}, ${tables} tables with their rows; pg_restore reads it back whole)`,
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
    writeSealed(Buffer.from(await tarball.arrayBuffer()));
  } finally {
    await db.close();
  }
  readBack();
  console.log(
    `backup: wrote ${relative(root, out)} (${size()}), the embedded database in ${relative(root, directory) || '.'}`,
  );
  if (!readSetting('WAIVER_ENCRYPTION_KEY')) {
    console.log(`backup: the key is ${LOCAL_KEY_FILE}: copy it separately.`);
  }
}
console.log(`backup: ${KEY_WORDS}`);
