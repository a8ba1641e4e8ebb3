/**
 * The database the maintenance commands (`npm run rotate-key`, `backup`, `restore`) work on: the
 * one `npm start` uses. `NETLIFY_DB_URL` when it is set (a self-hosted PostgreSQL, or Netlify
 * Database through its connection string); otherwise the embedded one in `LOCAL_DB_DIR`
 * (`.netlify/db`), reached through `npm start` while it runs on it (`.netlify/state.json` names
 * it), or else opened here. PGlite does not lock its folder: two processes must never open it at
 * once, so a command that needs the folder itself refuses while `npm start` uses it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { readSetting } from '../src/server/platform/settings.ts';
import { startSessionLock } from './db-session-lock.ts';
import { startEmbeddedDatabase } from './embedded-db.ts';

export interface SiteDatabase {
  /** `external`: NETLIFY_DB_URL; `embedded`: opened here; `running`: through npm start. */
  kind: 'external' | 'embedded' | 'running';
  /** A connection string for it. */
  url: string;
  close(): Promise<void>;
}

/** The embedded database's folder: `LOCAL_DB_DIR`, else `.netlify/db`. */
export function embeddedDirectory(root: string): string {
  return resolve(root, readSetting('LOCAL_DB_DIR') ?? join('.netlify', 'db'));
}

/**
 * The connection string of `npm start`'s embedded database while it runs and answers; with
 * `defaultFolder`, of the one in `.netlify/db` whatever `LOCAL_DB_DIR` says.
 */
export async function runningEmbedded(
  root: string,
  defaultFolder = false,
): Promise<string | undefined> {
  // Only the default folder is recorded (scripts/server/index.ts, recordState).
  if (readSetting('LOCAL_DB_DIR') && !defaultFolder) return undefined;
  const text = await readFile(join(root, '.netlify', 'state.json'), 'utf8').catch(() => '{}');
  const url = (JSON.parse(text) as { dbConnectionString?: unknown }).dbConnectionString;
  if (typeof url !== 'string') return undefined;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return url;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Opens the site's database (see above). Throws a sentence when there is none. */
export async function openSiteDatabase(root: string): Promise<SiteDatabase> {
  const external = readSetting('NETLIFY_DB_URL');
  if (external) return { kind: 'external', url: external, close: async () => undefined };
  const running = await runningEmbedded(root);
  if (running) return { kind: 'running', url: running, close: async () => undefined };
  const directory = embeddedDirectory(root);
  if (!existsSync(join(directory, 'PG_VERSION'))) {
    throw new Error(`There is no database: NETLIFY_DB_URL is not set, and ${directory} is empty`);
  }
  const db = await startEmbeddedDatabase(directory);
  const lock = await startSessionLock(db.url);
  return {
    kind: 'embedded',
    url: lock.url,
    async close() {
      await lock.close();
      await db.stop();
    },
  };
}
