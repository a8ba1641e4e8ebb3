/**
 * Backups that are known to restore: `npm run backup` then `npm run restore` (scripts/backup.ts,
 * scripts/restore.ts), run as they are run by hand, on a real PostgreSQL (pg_dump, pg_restore
 * into a new, empty database) and on the embedded database's folder. Every waiver signed through
 * the form is read back from the restored copy with its health information, and its records PDF
 * with the SHA-256 of the very PDF that was mailed.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { ensurePostgres } from '../../scripts/postgres.ts';
import { startEmbeddedDatabase } from '../../scripts/embedded-db.ts';
import { closeDatabase } from '../../src/server/platform/db';
import { storedRecordsPdf } from '../../src/server/waiver/records-pdf';
import { loadWaiver } from '../../src/server/waiver/store';
import { MIGRATIONS } from '../fixtures/databases';
import { useFunctionEnv } from '../fixtures/function-env';
import { seedWaivers } from '../fixtures/waiver-rows';
import { signWaiver } from './desk';

const env = useFunctionEnv();
const ROOT = resolve(import.meta.dirname, '../..');
const KEY = randomBytes(32).toString('base64');
const scratch = mkdtempSync(join(tmpdir(), 'backup-test-'));

beforeAll(() => {
  vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
  vi.stubEnv('WAIVER_RATE_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_RECORDS_TO', 'records@example.test');
});

afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** `npm run backup` / `npm run restore` as a person runs them, with `env` on top of the site's. */
function run(
  script: 'backup' | 'restore' | 'rotate-key',
  args: string[],
  env: Record<string, string>,
) {
  return new Promise<Run>((done) => {
    const child = spawn(process.execPath, [`scripts/${script}.ts`, ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        NETLIFY_DB_URL: '',
        LOCAL_DB_DIR: '',
        POSTGRES_BIN: ensurePostgres().bin,
        WAIVER_ENCRYPTION_KEY: KEY,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    child.on('close', (code) => done({ code, out, err }));
  });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** An empty database on the test server, as an operator makes one to restore into. */
async function emptyDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: inject('postgresUrl') });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return url.href;
}

describe('npm run backup, then npm run restore', () => {
  test('a PostgreSQL database with waivers restores into an empty one, every waiver and PDF read back with the right SHA-256', async () => {
    // Waivers signed through the form, their records mailed (the PDF made, hashed and kept).
    const health = ['Herniated disc L4-L5', 'Scoliosis, mild', 'Asthma'];
    const ids: string[] = [];
    for (const [n, condition] of health.entries()) {
      ids.push(
        await signWaiver({
          email: `participant-${n}@example.test`,
          medicalConditions: condition,
          medications: n === 0 ? 'Salbutamol' : '',
        }),
      );
    }
    await env.smtp.waitForMails(2 * ids.length);
    const originals = new Map(
      await Promise.all(ids.map(async (id) => [id, (await loadWaiver(id))!] as const)),
    );
    const pdfs = new Map(
      await Promise.all(ids.map(async (id) => [id, (await storedRecordsPdf(id))!.sha256] as const)),
    );
    // The PDFs kept are the PDFs mailed, byte for byte.
    expect([...pdfs.values()].sort()).toEqual(
      env.smtp.mails
        .filter((m) => m.envelope.to[0] === 'records@example.test')
        .map((m) => sha256(m.attachments[0]!.content))
        .sort(),
    );

    const file = join(scratch, 'studio.dump');
    const backup = await run('backup', [`--out=${file}`], { NETLIFY_DB_URL: env.url });
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.out).toMatch(/tables with their rows; pg_restore reads it back whole/);
    expect(backup.out).toContain('never in the same place as the backups');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // Not over a database that holds anything: the original refuses, untouched.
    const over = await run('restore', [file], { NETLIFY_DB_URL: env.url });
    expect(over.code).toBe(1);
    expect(over.err).toMatch(/is not empty \(\d+ tables\): restore into a new, empty database/);

    const target = await emptyDatabase(`restored_${randomBytes(4).toString('hex')}`);
    const restore = await run('restore', [file], { NETLIFY_DB_URL: target });
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain(
      '3 waiver(s) read back with their health information, 3 signed PDF(s) with the SHA-256 recorded when they were made',
    );

    // Read again here, as the site reads them, from the restored copy.
    await closeDatabase();
    vi.stubEnv('NETLIFY_DB_URL', target);
    try {
      for (const id of ids) {
        const restored = await loadWaiver(id);
        const original = originals.get(id)!;
        expect(restored).toEqual(original);
        const pdf = await storedRecordsPdf(id);
        expect(pdf?.sha256).toBe(pdfs.get(id));
        expect(sha256(pdf!.bytes)).toBe(pdfs.get(id));
      }
      // The restored database is the site's: its migrations are recorded as applied.
      const client = new pg.Client({ connectionString: target });
      await client.connect();
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM netlify.migrations',
      );
      await client.end();
      expect(rows[0]!.n).toBeGreaterThanOrEqual(10);
    } finally {
      await closeDatabase();
      vi.stubEnv('NETLIFY_DB_URL', env.url);
    }

    // Without the key the waivers do not read: the restore says so and fails.
    const keyless = await run('restore', ['--check'], {
      NETLIFY_DB_URL: target,
      WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    expect(keyless.code).toBe(1);
    expect(keyless.err).toMatch(/3 waiver\(s\) could not be read/);
  });

  test('the embedded database’s folder backs up and restores into a new folder, every waiver and PDF read back', async () => {
    const folder = join(scratch, 'db');
    const embedded = await startEmbeddedDatabase(folder);
    await embedded.applyMigrations(MIGRATIONS);
    const pdf = Buffer.from(`%PDF-1.7 ${randomBytes(2_000).toString('base64')}`);
    const seeded = await seedWaivers(embedded.db, [
      { medicalConditions: 'Knee replacement 2019', pdf },
      { medicalConditions: 'None' },
    ]);
    await embedded.stop();

    const file = join(scratch, 'embedded.tar.gz');
    const backup = await run('backup', [`--out=${file}`], { LOCAL_DB_DIR: folder });
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.out).toMatch(/wrote .*embedded\.tar\.gz \(\d+ KB\), the embedded database/);

    const into = join(scratch, 'restored-db');
    const restore = await run('restore', [file], { LOCAL_DB_DIR: into });
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain(
      '2 waiver(s) read back with their health information, 1 signed PDF(s) with the SHA-256',
    );
    expect(readdirSync(into)).toContain('PG_VERSION');

    const again = await run('restore', [file], { LOCAL_DB_DIR: into });
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/is not empty: move it away/);

    // The key rotation works on the embedded database too; the copy then reads with the new key.
    const NEW = randomBytes(32).toString('base64');
    const rotated = await run('rotate-key', [], {
      LOCAL_DB_DIR: into,
      WAIVER_ENCRYPTION_KEY: NEW,
      WAIVER_ENCRYPTION_OLD_KEYS: KEY,
    });
    expect(rotated.code).toBe(0);
    expect(rotated.out).toMatch(
      /2 waiver\(s\), 4 field\(s\), 1 PDF\(s\), 0 booking link\(s\) re-encrypted/,
    );
    const checked = await run('restore', ['--check'], {
      LOCAL_DB_DIR: into,
      WAIVER_ENCRYPTION_KEY: NEW,
    });
    expect(checked.code).toBe(0);
    expect(checked.out).toContain('2 waiver(s) read back');

    const restored = await startEmbeddedDatabase(into);
    try {
      const { rows } = await restored.db.query<{ id: string; sha256: string | null }>(
        `SELECT w.id, p.sha256 FROM waivers w LEFT JOIN waiver_pdfs p ON p.waiver_id = w.id`,
      );
      expect(new Map(rows.map((row) => [row.id, row.sha256]))).toEqual(
        new Map(seeded.map((waiver) => [waiver.id, waiver.pdfSha256])),
      );
      expect(seeded[0]!.pdfSha256).toBe(sha256(pdf));
    } finally {
      await restored.stop();
    }
  });
});
