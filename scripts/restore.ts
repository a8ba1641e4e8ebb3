/**
 * `npm run restore -- FILE`: puts a backup made by `npm run backup` back, into an empty database,
 * then reads every waiver in it as the desk would (its health information opened with the keys
 * given, its records PDF checked against the SHA-256 recorded when it was made). `--check` only
 * reads the site's database so.
 *
 * - The file is opened whole with the site's key before anything reads it
 *   (scripts/backup-seal.ts): a changed byte, a cut file or another key restores nothing, in one
 *   line. A backup made before backups were sealed is restored only with `--unsealed`.
 * - `RESTORE_REPLACES` names the database the restore replaces (its connection string, or the
 *   embedded database's folder, moved aside); `--replaces-nothing` says there is none to read.
 *   Its erasures, unsubscribes and cancellations made since the backup are made again, and every
 *   desk session, sign-in link, remembered device, kiosk and calendar feed address of the backup
 *   is revoked (src/server/records/after-restore.ts).
 * - `--settle` does that to the site's database as it is: after a restore by other means
 *   (Netlify Database's own), before the site is used again.
 * - A `pg_dump` file goes into the database of `NETLIFY_DB_URL`, which must hold no table yet
 *   (make a new one: a restore never mixes into, or replaces, a database in use), with
 *   `pg_restore` in one transaction: all of it, or nothing. Its password reaches `pg_restore` in
 *   its environment, never on its command line.
 * - A tarball of the embedded database becomes the folder `LOCAL_DB_DIR` (`.netlify/db`), which
 *   must not exist yet or be empty.
 *
 * Exit status 0 when everything was restored and every waiver reads; 1 otherwise.
 */
import './source-imports.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { readSetting } from '../src/server/platform/settings.ts';
import { backupKind, openBackup } from './backup-seal.ts';
import { KEY_WORDS, pgConnection, pgTool, runTool } from './backups.ts';
import { migrateExternal } from './server/database.ts';
import { embeddedDirectory, openSiteDatabase, runningEmbedded } from './site-database.ts';
import type { Replaced } from '../src/server/records/after-restore.ts';

const root = process.cwd();
const args = process.argv.slice(2);
const FLAGS = ['--check', '--settle', '--replaces-nothing', '--unsealed'];
const checkOnly = args.includes('--check');
const settleOnly = args.includes('--settle');
const files = args.filter((arg) => !arg.startsWith('--'));
const unknown = args.filter((arg) => arg.startsWith('--') && !FLAGS.includes(arg));
const MIGRATIONS = resolve(import.meta.dirname, '../netlify/database/migrations');

const DAMAGED = 'The backup file is damaged or was changed; nothing was restored.';

function fail(message: string): never {
  console.error(`restore: ${message}`);
  process.exit(1);
}

if (unknown.length > 0) fail(`unknown argument ${unknown.join(' ')}`);

// Opening the backup and reading its waivers back need the key; without one a local run would
// make a new one, which opens nothing.
const { LOCAL_KEY_FILE, keyring } = await import('../src/server/platform/crypto.ts');
if (!readSetting('WAIVER_ENCRYPTION_KEY') && !existsSync(resolve(root, LOCAL_KEY_FILE))) {
  fail(
    `no WAIVER_ENCRYPTION_KEY (nor ${LOCAL_KEY_FILE}): the backup cannot be opened nor its waivers read. Set the key the backup was made with. ${KEY_WORDS}`,
  );
}

/** Reads what the database being replaced took back since the backup, before anything is restored. */
async function readReplacedDatabase(): Promise<Replaced> {
  const { readReplaced, NOTHING_REPLACED } = await import('../src/server/records/after-restore.ts');
  const source = readSetting('RESTORE_REPLACES');
  if (args.includes('--replaces-nothing')) {
    if (source) fail('RESTORE_REPLACES is set and --replaces-nothing says there is none: which?');
    return NOTHING_REPLACED;
  }
  if (!source) {
    fail(
      'set RESTORE_REPLACES to the database this restore replaces (its connection string, or the folder of the embedded one), so that the erasures made since the backup are made again; if there is none (it is lost), say --replaces-nothing',
    );
  }
  try {
    if (/^postgres(ql)?:\/\//.test(source)) {
      const client = new pg.Client({ connectionString: source, connectionTimeoutMillis: 10_000 });
      client.on('error', () => undefined);
      await client.connect();
      try {
        return await readReplaced(client);
      } finally {
        await client.end();
      }
    }
    const folder = resolve(root, source);
    // Two programs must never open one embedded database at once.
    if (folder === resolve(root, '.netlify', 'db') && (await runningEmbedded(root, true))) {
      throw new Error('npm start is using it: stop it first');
    }
    if (!existsSync(resolve(folder, 'PG_VERSION'))) throw new Error(`no database in ${folder}`);
    const db = await PGlite.create(folder);
    try {
      return await readReplaced(db);
    } finally {
      await db.close();
    }
  } catch (error) {
    return fail(
      `the database RESTORE_REPLACES names cannot be read (${(error as Error).message}); if it is lost, say --replaces-nothing instead. ${settleOnly ? 'Nothing was changed.' : 'Nothing was restored.'}`,
    );
  }
}

/** Set once a backup is restored: what the database it replaces took back since. */
let replaced: Replaced | undefined;

if (settleOnly) {
  if (checkOnly || files.length > 0) fail('--settle works on the site’s database: name no file');
  replaced = await readReplacedDatabase();
} else if (!checkOnly) {
  if (files.length !== 1) fail('name one backup file: npm run restore -- backups/studio-....dump');
  const file = resolve(files[0]!);
  if (!existsSync(file)) fail(`${file} does not exist`);
  const opened = openBackup(readFileSync(file), keyring());
  let plain: Buffer;
  if (opened.ok) {
    plain = opened.plain;
  } else if (opened.why === 'unsealed') {
    if (!args.includes('--unsealed')) {
      fail(
        `${files[0]} was made before backups were sealed, so nothing shows whether it was changed: restore it only if it never left your hands, with --unsealed. Nothing was restored.`,
      );
    }
    plain = readFileSync(file);
  } else if (opened.why === 'other-key') {
    fail(
      `the backup was sealed with key ${opened.keyId}, which is not given: set it in WAIVER_ENCRYPTION_KEY or WAIVER_ENCRYPTION_OLD_KEYS. Nothing was restored.`,
    );
  } else {
    fail(DAMAGED);
  }
  const kind = backupKind(plain);
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
    if (readSetting('RESTORE_REPLACES') === url) {
      fail('RESTORE_REPLACES names the database restored into: name the one this restore replaces');
    }
    replaced = await readReplacedDatabase();
    const connection = pgConnection(url);
    const restore = await runTool(
      pgTool('pg_restore'),
      [
        '--no-owner',
        '--no-privileges',
        '--exit-on-error',
        '--single-transaction',
        `--dbname=${connection.dbname}`,
      ],
      { env: connection.env, input: plain },
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
    replaced = await readReplacedDatabase();
    const db = await PGlite.create({
      dataDir: directory,
      loadDataDir: new Blob([new Uint8Array(plain)]),
    });
    await db.close();
  } else {
    fail(DAMAGED);
  }
}

const database = await openSiteDatabase(root);
process.env.NETLIFY_DB_URL = database.url;
let status = 1;
try {
  if (replaced) {
    // Brought to this version's migrations first: an older backup lacks the newer tables.
    await migrateExternal(database.url, MIGRATIONS);
    const { afterRestore } = await import('../src/server/records/after-restore.ts');
    const done = await afterRestore(replaced);
    console.log(
      `restore: ${files[0] ?? 'the site’s database'} ${settleOnly ? 'settled' : 'restored'}; revoked ${done.sessions} desk session(s), ${done.signInLinks} sign-in link(s), ${done.devices} remembered device(s), ${done.kiosks} kiosk(s) and ${done.feedAddresses} calendar feed address(es); made again ${done.erasures} erasure(s), ${done.unsubscribed} unsubscribe(s) and ${done.cancelled} cancellation(s) since the backup`,
    );
  }
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
  console.error(
    replaced
      ? `restore: the restored database could not be made safe (${(error as Error)?.message}): do not point the site at it; drop it (or its folder), then restore again`
      : `restore: the waivers could not be read: ${(error as Error)?.message}`,
  );
} finally {
  const { closeDatabase } = await import('../src/server/platform/db.ts');
  await closeDatabase();
  await database.close();
}
process.exit(status);
