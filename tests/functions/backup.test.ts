/**
 * Backups that are known to restore: `npm run backup` then `npm run restore` (scripts/backup.ts,
 * scripts/restore.ts), run as they are run by hand, on a real PostgreSQL (pg_dump, pg_restore
 * into a new, empty database) and on the embedded database's folder. Every waiver signed through
 * the form is read back from the restored copy with its health information, and its records PDF
 * with the SHA-256 of the very PDF that was mailed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { ensurePostgres } from '../../scripts/postgres.ts';
import { startEmbeddedDatabase } from '../../scripts/embedded-db.ts';
import { newToken, tokenHash } from '../../src/server/platform/tokens';
import { closeDatabase } from '../../src/server/platform/db';
import { storedRecordsPdf } from '../../src/server/waiver/records-pdf';
import { loadWaiver } from '../../src/server/waiver/store';
import { MIGRATIONS } from '../fixtures/databases';
import { useFunctionEnv } from '../fixtures/function-env';
import { seedWaivers } from '../fixtures/waiver-rows';
import consultationFeed from '../../functions/consultation-feed';
import waiverKiosk from '../../functions/waiver-kiosk';
import { desk, linkToken, ORIGIN, sendMessage, signIn, signWaiver, STAFF } from './desk';

const env = useFunctionEnv();
const ROOT = resolve(import.meta.dirname, '../..');
const KEY = randomBytes(32).toString('base64');
const scratch = mkdtempSync(join(tmpdir(), 'backup-test-'));

beforeAll(() => {
  vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_COPY_LIMIT', '1000/1h');
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
        RESTORE_REPLACES: '',
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

const DAMAGED = 'restore: The backup file is damaged or was changed; nothing was restored.\n';

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
    const over = await run('restore', [file], {
      NETLIFY_DB_URL: env.url,
      RESTORE_REPLACES: env.url,
    });
    expect(over.code).toBe(1);
    expect(over.err).toMatch(/is not empty \(\d+ tables\): restore into a new, empty database/);

    const target = await emptyDatabase(`restored_${randomBytes(4).toString('hex')}`);
    const restore = await run('restore', [file], {
      NETLIFY_DB_URL: target,
      RESTORE_REPLACES: env.url,
    });
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
    // One byte changed: one line, and no folder made.
    const damaged = Buffer.from(readFileSync(file));
    damaged[damaged.length - 100]! ^= 0x40;
    writeFileSync(join(scratch, 'damaged.tar.gz'), damaged);
    const refused = await run('restore', [join(scratch, 'damaged.tar.gz')], {
      LOCAL_DB_DIR: into,
      RESTORE_REPLACES: folder,
    });
    expect(refused.err).toBe(DAMAGED);
    expect(refused.code).toBe(1);
    expect(existsSync(into)).toBe(false);

    const restore = await run('restore', [file], { LOCAL_DB_DIR: into, RESTORE_REPLACES: folder });
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain(
      '2 waiver(s) read back with their health information, 1 signed PDF(s) with the SHA-256',
    );
    expect(readdirSync(into)).toContain('PG_VERSION');

    const again = await run('restore', [file], { LOCAL_DB_DIR: into, RESTORE_REPLACES: folder });
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
  }, 180_000);
});

/** The tables of the database at `url` (none: nothing was restored into it). */
async function tablesIn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_tables
        WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** Runs `work` with the functions on the database at `url`, then back on the test's own. */
async function onDatabase<T>(url: string, work: () => Promise<T>): Promise<T> {
  await closeDatabase();
  vi.stubEnv('NETLIFY_DB_URL', url);
  try {
    return await work();
  } finally {
    await closeDatabase();
    vi.stubEnv('NETLIFY_DB_URL', env.url);
  }
}

describe('a backup is sealed, and a restore takes back what was taken back since', () => {
  test('a restored site honours no session, sign-in link, kiosk or feed address made before the backup, and shows nobody erased after it', async () => {
    const kept = 'kept@example.test';
    const erased = 'erased@example.test';
    await signWaiver({ email: kept, medicalConditions: 'Asthma' });
    await signWaiver({ email: erased, medicalConditions: 'Herniated disc L4-L5' });
    await sendMessage({ email: erased });
    await env.db.query(
      `INSERT INTO list_subscribers (email, signed_up_at, confirmed_at) VALUES ($1, now(), now())`,
      ['leaving@example.test'],
    );
    // Credentials of the desk, each live when the backup is made.
    const kioskSession = await signIn(env.smtp);
    const on = await desk('/api/records/kiosks', {
      body: { label: 'Front desk tablet' },
      cookie: kioskSession,
    });
    expect(on.status).toBe(200);
    const kiosk = on.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0]!)
      .join('; ');
    const session = await signIn(env.smtp);
    const made = await desk('/api/records/consultations/feed', { cookie: session, body: {} });
    const feedUrl = ((await made.json()) as { url: string }).url;
    expect((await consultationFeed(new Request(feedUrl))).status).toBe(200);
    const before = env.smtp.mails.length;
    expect((await desk('/api/records/sign-in', { body: { email: STAFF } })).status).toBe(200);
    await env.smtp.waitForMails(before + 1);
    const link = linkToken(env.smtp);

    const file = join(scratch, 'credentials.dump');
    const backup = await run('backup', [`--out=${file}`], { NETLIFY_DB_URL: env.url });
    expect(backup.code).toBe(0);
    // Sealed: nothing the database holds is readable in the file.
    const bytes = readFileSync(file);
    expect(bytes.includes('PGDMP')).toBe(false);
    expect(bytes.includes(erased)).toBe(false);
    expect(bytes.includes(kept)).toBe(false);

    // After the backup: one participant erased, one address taken off the list.
    const fresh = await signIn(env.smtp);
    expect(
      (
        await desk('/api/records/erasure', {
          cookie: fresh,
          body: { email: erased, confirm: erased },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await desk('/api/records/list/remove', {
          cookie: fresh,
          body: { email: 'leaving@example.test' },
        })
      ).status,
    ).toBe(200);

    // Without saying which database it replaces, a restore does nothing.
    const target = await emptyDatabase(`restored_${randomBytes(4).toString('hex')}`);
    const unsaid = await run('restore', [file], { NETLIFY_DB_URL: target });
    expect(unsaid.code).toBe(1);
    expect(unsaid.err).toMatch(/set RESTORE_REPLACES to the database this restore replaces/);
    expect(await tablesIn(target)).toBe(0);

    const restore = await run('restore', [file], {
      NETLIFY_DB_URL: target,
      RESTORE_REPLACES: env.url,
    });
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain('made again 1 erasure(s), 1 unsubscribe(s)');
    expect(restore.out).toContain('1 waiver(s) read back');

    await onDatabase(target, async () => {
      expect((await desk('/api/records/session', { cookie: session })).status).toBe(401);
      expect((await desk('/api/records/session', { cookie: kioskSession })).status).toBe(401);
      expect((await desk('/api/records/session', { body: { token: link } })).status).toBe(401);
      const asked = await waiverKiosk(
        new Request(`${ORIGIN}/api/waiver/kiosk`, { headers: { cookie: kiosk } }),
      );
      expect(await asked.json()).toEqual({ success: true, kiosk: false });
      expect((await consultationFeed(new Request(feedUrl))).status).toBe(404);

      // Signed in anew on the restored site: the erased participant is not there.
      const again = await signIn(env.smtp);
      const search = async (q: string) =>
        (
          (await (
            await desk(`/api/records/participants?q=${encodeURIComponent(q)}`, { cookie: again })
          ).json()) as { items: unknown[] }
        ).items;
      expect(await search('kept@')).toHaveLength(1);
      expect(await search('erased@')).toHaveLength(0);
      const messages = (await (await desk('/api/records/messages', { cookie: again })).json()) as {
        items: unknown[];
      };
      expect(messages.items).toHaveLength(0);
      const client = new pg.Client({ connectionString: target });
      await client.connect();
      const { rows } = await client.query<{ erased: number; left: number; tombstones: number }>(
        `SELECT (SELECT count(*)::int FROM waivers WHERE email = $1) AS erased,
                (SELECT count(*)::int FROM list_subscribers WHERE unsubscribed_at IS NOT NULL) AS left,
                (SELECT count(*)::int FROM erasure_tombstones) AS tombstones`,
        [erased],
      );
      await client.end();
      // The tombstone comes along, for a restore of this backup over the restored site.
      expect(rows[0]).toEqual({ erased: 0, left: 1, tombstones: 1 });
    });
  }, 180_000);

  test('--settle does the same to a database restored by other means (Netlify Database’s own restore)', async () => {
    const session = await signIn(env.smtp);
    expect((await desk('/api/records/session', { cookie: session })).status).toBe(200);
    const unsaid = await run('restore', ['--settle'], { NETLIFY_DB_URL: env.url });
    expect(unsaid.code).toBe(1);
    expect((await desk('/api/records/session', { cookie: session })).status).toBe(200);

    const settled = await run('restore', ['--settle', '--replaces-nothing'], {
      NETLIFY_DB_URL: env.url,
    });
    expect(settled.err).toBe('');
    expect(settled.code).toBe(0);
    expect(settled.out).toContain(
      'restore: the site’s database settled; revoked 1 desk session(s)',
    );
    expect((await desk('/api/records/session', { cookie: session })).status).toBe(401);
  }, 120_000);

  test('the embedded database’s restore reads the old folder too: its erasures and cancellations since the backup are made again, its sessions end', async () => {
    const folder = join(scratch, 'taken-back-db');
    const embedded = await startEmbeddedDatabase(folder);
    await embedded.applyMigrations(MIGRATIONS);
    const [gone, stays] = await seedWaivers(embedded.db, [
      { medicalConditions: 'Erased later' },
      { medicalConditions: 'Kept' },
    ]);
    const booking = randomUUID();
    await embedded.db.query(
      `INSERT INTO consultation_bookings
         (id, starts_at, ends_at, held, name, email, manage_token_sha256, origin)
       VALUES ($1, '2030-01-01T10:00Z', '2030-01-01T10:30Z',
               tstzrange('2030-01-01T10:00Z', '2030-01-01T10:45Z'), 'Ada', 'ada@example.test',
               $2, $3)`,
      [booking, tokenHash(newToken()), ORIGIN],
    );
    // A private session and a place in a class, booked then too.
    const session = randomUUID();
    await embedded.db.query(
      `INSERT INTO session_bookings
         (id, session_type, session_title, place, starts_at, ends_at, held, name, email,
          amount_cents, manage_token_sha256, manage_token_sealed, origin)
       VALUES ($1, 'private', 'Private session', 'studio', '2030-01-02T10:00Z',
               '2030-01-02T10:55Z', tstzrange('2030-01-02T10:00Z', '2030-01-02T11:10Z'),
               'Bea', 'bea@example.test', 12000, $2, 'enc2:sealed', $3)`,
      [session, tokenHash(newToken()), ORIGIN],
    );
    const classDate = randomUUID();
    const place = randomUUID();
    await embedded.db.query(
      `INSERT INTO class_dates (id, class_key, title, starts_at, ends_at, capacity, minimum, price_cents)
       VALUES ($1, 'sunrise-mat', 'Sunrise Mat', '2030-01-03T15:00Z', '2030-01-03T15:55Z', 4, 2, 3000)`,
      [classDate],
    );
    await embedded.db.query(
      `INSERT INTO class_places
         (id, class_date_id, capacity, place_no, status, name, email, mailbox,
          manage_token_sha256, manage_token_sealed, origin)
       VALUES ($1, $2, 4, 1, 'booked', 'Cy', 'cy@example.test', 'cy@example.test', $3,
               'enc2:sealed', $4)`,
      [place, classDate, tokenHash(newToken()), ORIGIN],
    );
    await embedded.db.query(
      `INSERT INTO staff_sessions (token_sha256, email, expires_at)
       VALUES ($1, $2, now() + interval '1 hour')`,
      [tokenHash(newToken()), STAFF],
    );
    await embedded.stop();
    const file = join(scratch, 'taken-back.tar.gz');
    expect((await run('backup', [`--out=${file}`], { LOCAL_DB_DIR: folder })).code).toBe(0);

    // Since the backup: one waiver erased (its tombstone, as an erasure leaves it), the
    // consultation and the session cancelled by their visitors, the place on the desk.
    const later = await startEmbeddedDatabase(folder);
    await later.db.query(`DELETE FROM waivers WHERE id = $1`, [gone!.id]);
    await later.db.query(
      `INSERT INTO erasure_tombstones (id, waiver_ids, message_ids, booking_ids, subscriber_ids)
       VALUES ($1, $2::uuid[], '{}', '{}', '{}')`,
      [randomUUID(), [gone!.id]],
    );
    await later.db.query(
      `UPDATE consultation_bookings SET cancelled_at = now(), cancelled_by = 'visitor',
              sequence = 1 WHERE id = $1`,
      [booking],
    );
    await later.db.query(
      `UPDATE session_bookings SET cancelled_at = now(), cancelled_by = 'visitor', sequence = 1
        WHERE id = $1`,
      [session],
    );
    await later.db.query(
      `UPDATE class_places SET status = 'cancelled', place_no = NULL, cancelled_at = now(),
              cancelled_by = 'maya@example.test', sequence = 1 WHERE id = $1`,
      [place],
    );
    await later.stop();

    const into = join(scratch, 'taken-back-restored');
    const restore = await run('restore', [file], { LOCAL_DB_DIR: into, RESTORE_REPLACES: folder });
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain('revoked 1 desk session(s)');
    expect(restore.out).toContain(
      'made again 1 erasure(s), 0 unsubscribe(s) and 3 cancellation(s)',
    );
    expect(restore.out).toContain('1 waiver(s) read back');

    const restored = await startEmbeddedDatabase(into);
    try {
      const { rows } = await restored.db.query<{ waivers: string[]; cancelled: string | null }>(
        `SELECT (SELECT array_agg(id::text) FROM waivers) AS waivers,
                (SELECT cancelled_by FROM consultation_bookings WHERE id = $1) AS cancelled`,
        [booking],
      );
      expect(rows[0]).toEqual({ waivers: [stays!.id], cancelled: 'visitor' });
      const { rows: others } = await restored.db.query(
        `SELECT (SELECT cancelled_by FROM session_bookings WHERE id = $1) AS session,
                (SELECT row(status, place_no, cancelled_by, sequence)::text FROM class_places
                  WHERE id = $2) AS place`,
        [session, place],
      );
      expect(others[0]).toEqual({
        session: 'visitor',
        place: '(cancelled,,maya@example.test,1)',
      });
      expect((await restored.db.query(`SELECT * FROM staff_sessions`)).rows).toEqual([]);
    } finally {
      await restored.stop();
    }
  }, 240_000);

  test('a changed, cut or planted backup file, or one opened with another key, restores nothing and says so in one line', async () => {
    await signWaiver({ email: 'someone@example.test' });
    const file = join(scratch, 'sealed.dump');
    expect((await run('backup', [`--out=${file}`], { NETLIFY_DB_URL: env.url })).code).toBe(0);
    const sealed = readFileSync(file);
    const target = await emptyDatabase(`changed_${randomBytes(4).toString('hex')}`);
    const restoreOf = async (
      bytes: Buffer,
      extra: Record<string, string> = {},
      flags: string[] = [],
    ) => {
      const changed = join(scratch, `changed-${randomBytes(4).toString('hex')}.dump`);
      writeFileSync(changed, bytes, { mode: 0o600 });
      return run('restore', [changed, ...flags], {
        NETLIFY_DB_URL: target,
        RESTORE_REPLACES: env.url,
        ...extra,
      });
    };

    const flipped = Buffer.from(sealed);
    flipped[Math.floor(flipped.length / 2)]! ^= 0x01;
    const cut = sealed.subarray(0, sealed.length - 1);
    // A valid archive of its own, made by pg_dump, put where the backup was.
    const { bin } = ensurePostgres();
    const planted = spawnSync(join(bin, 'pg_dump'), ['--format=custom', `--dbname=${env.url}`]);
    expect(planted.status).toBe(0);
    for (const bytes of [flipped, cut, Buffer.from('not a backup at all')]) {
      const refused = await restoreOf(bytes);
      expect(refused.err).toBe(DAMAGED);
      expect(refused.out).toBe('');
      expect(refused.code).toBe(1);
    }
    writeFileSync(join(scratch, 'unsealed.dump'), planted.stdout, { mode: 0o600 });
    const unsealed = await restoreOf(planted.stdout);
    expect(unsealed.code).toBe(1);
    expect(unsealed.err).toMatch(/^restore: [^\n]+ was made before backups were sealed, [^\n]+\n$/);
    const otherKey = await restoreOf(sealed, {
      WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    expect(otherKey.code).toBe(1);
    expect(otherKey.err).toMatch(/^restore: the backup was sealed with key [0-9a-f]{8}, [^\n]+\n$/);
    expect(await tablesIn(target)).toBe(0);

    // The very file, unchanged, restores; so does an unsealed one, when the operator says so.
    const whole = await restoreOf(sealed);
    expect(whole.err).toBe('');
    expect(whole.code).toBe(0);
    const other = await emptyDatabase(`unsealed_${randomBytes(4).toString('hex')}`);
    const said = await run('restore', [join(scratch, 'unsealed.dump'), '--unsealed'], {
      NETLIFY_DB_URL: other,
      RESTORE_REPLACES: env.url,
    });
    expect(said.err).toBe('');
    expect(said.code).toBe(0);
  }, 120_000);

  test('pg_dump and pg_restore never get the password on their command line, and no backup is readable by others at any time', async () => {
    const url = new URL(env.url);
    url.password = 'secret-password-Zq7';
    // PostgreSQL's own programs, each behind a wrapper that notes its arguments and, once it is
    // done, the modes of the files in the backup folder.
    const tools = mkdtempSync(join(tmpdir(), 'pg-tools-'));
    const folder = mkdtempSync(join(scratch, 'out-'));
    const notes = join(tools, 'notes');
    const { bin } = ensurePostgres();
    for (const name of ['pg_dump', 'pg_restore']) {
      writeFileSync(
        join(tools, name),
        `#!/bin/sh\necho "${name} $*" >> "${notes}"\n"${join(bin, name)}" "$@"\nstatus=$?\nstat -c '%a %n' "${folder}"/* >> "${notes}" 2>/dev/null\nexit $status\n`,
        { mode: 0o700 },
      );
    }
    const file = join(folder, 'studio.dump');
    const backup = await run('backup', [`--out=${file}`], {
      NETLIFY_DB_URL: url.href,
      POSTGRES_BIN: tools,
    });
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    const target = new URL(await emptyDatabase(`quiet_${randomBytes(4).toString('hex')}`));
    target.password = 'secret-password-Zq7';
    const restore = await run('restore', [file], {
      NETLIFY_DB_URL: target.href,
      RESTORE_REPLACES: env.url,
      POSTGRES_BIN: tools,
    });
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);

    const noted = readFileSync(notes, 'utf8');
    expect(noted).toMatch(/^pg_dump /m);
    expect(noted).toMatch(/^pg_restore /m);
    expect(noted).not.toContain('secret-password-Zq7');
    const modes = [...noted.matchAll(/^(\d{3}) /gm)].map((m) => m[1]);
    expect(modes.filter((mode) => !mode!.endsWith('00'))).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    rmSync(tools, { recursive: true, force: true });
  }, 120_000);
});
