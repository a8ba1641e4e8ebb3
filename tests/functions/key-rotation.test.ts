/**
 * `npm run rotate-key` (scripts/rotate-key.ts over src/server/waiver/key-rotation.ts) on a real
 * PostgreSQL: a thousand waivers, their health fields sealed with the old key (some in the older
 * `enc1` format) and half of them with a records PDF, moved to a new key. The command runs as it
 * is run by hand, in a process of its own; the crash is that process killed mid-batch. The
 * bookings' manage links it re-seals too: consultation-key-rotation.test.ts.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { decryptField, keyId, openBytes } from '../../src/server/platform/crypto';
import { pdfLabel } from '../../src/server/waiver/records-pdf';
import { useFunctionEnv } from '../fixtures/function-env';
import { seedWaivers, type SeededWaiver } from '../fixtures/waiver-rows';

const env = useFunctionEnv();
// Each test seeds 1,000 waivers and runs the script in a child process: about 10 s on a quiet
// machine, past 30 s when every core is busy (it timed out so in a full run).
vi.setConfig({ testTimeout: 120_000 });
const ROOT = resolve(import.meta.dirname, '../..');
const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const OLD_ID = keyId(Buffer.from(OLD, 'base64'));
const NEW_ID = keyId(Buffer.from(NEW, 'base64'));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/**
 * Runs the command as `npm run rotate-key` does, with the new key and the old one; `until`
 * kills it (SIGKILL: no clean-up of any kind) as soon as its output matches.
 */
function rotate(args: string[] = [], until?: RegExp): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['scripts/rotate-key.ts', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        NETLIFY_DB_URL: env.url,
        WAIVER_ENCRYPTION_KEY: NEW,
        WAIVER_ENCRYPTION_OLD_KEYS: OLD,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
      if (until?.test(out)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    child.on('close', (code, signal) => done({ code, signal, out, err }));
  });
}

const HEALTH = ['Herniated disc L4-L5', 'Salbutamol inhaler'];

/** A thousand waivers sealed with the old key: every third in `enc1`, every other with a PDF. */
async function seedThousand(): Promise<SeededWaiver[]> {
  vi.stubEnv('WAIVER_ENCRYPTION_KEY', OLD);
  vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', '');
  const seeded = await seedWaivers(
    env.db,
    Array.from({ length: 1000 }, (_, n) => ({
      medicalConditions: `${HEALTH[0]} (${n})`,
      medications: n % 7 === 0 ? '' : `${HEALTH[1]} (${n})`,
      format: n % 3 === 0 ? ('enc1' as const) : ('enc2' as const),
      pdf: n % 2 === 0 ? randomBytes(2_000 + (n % 5) * 1_000) : undefined,
    })),
  );
  vi.unstubAllEnvs();
  return seeded;
}

interface Stored {
  id: string;
  medical_conditions: string;
  medications: string;
  sha256: string | null;
  sealed: Uint8Array | null;
}

async function stored(): Promise<Map<string, Stored>> {
  const { rows } = await env.db.query<Stored>(
    `SELECT w.id, w.medical_conditions, w.medications, p.sha256, p.sealed
       FROM waivers w LEFT JOIN waiver_pdfs p ON p.waiver_id = w.id`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Opens every waiver's fields and PDF with the keys given (as the site would): the values it
 * was seeded with, and each PDF's SHA-256 the one recorded. Returns the key ids in use.
 */
async function readEvery(seeded: SeededWaiver[], current: string, old = '') {
  vi.stubEnv('WAIVER_ENCRYPTION_KEY', current);
  vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', old);
  const rows = await stored();
  const keys = new Map<string, number>();
  const count = (key: string) => keys.set(key, (keys.get(key) ?? 0) + 1);
  for (const waiver of seeded) {
    const row = rows.get(waiver.id)!;
    expect(decryptField(row.medical_conditions, 'medicalConditions', waiver.id)).toBe(
      waiver.medicalConditions,
    );
    expect(decryptField(row.medications, 'medications', waiver.id)).toBe(waiver.medications);
    count(row.medical_conditions.split(':').slice(0, 2).join(':'));
    count(row.medications.split(':').slice(0, 2).join(':'));
    if (waiver.pdfSha256) {
      const bytes = openBytes(Buffer.from(row.sealed!), pdfLabel(waiver.id));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(waiver.pdfSha256);
      expect(row.sha256).toBe(waiver.pdfSha256);
      count(`pdf:${Buffer.from(row.sealed!).subarray(4, 12).toString('ascii')}`);
    }
  }
  vi.unstubAllEnvs();
  return Object.fromEntries(keys);
}

beforeEach(() => {
  vi.unstubAllEnvs();
});

describe('npm run rotate-key', () => {
  test('moves 1,000 waivers to a new key: every one decrypts after the old key is removed', async () => {
    const seeded = await seedThousand();
    expect(await env.count('waivers')).toBe(1000);
    const run = await rotate();
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      new RegExp(
        `done in [\\d.]+ s: 1000 waiver\\(s\\), 2000 field\\(s\\), 500 PDF\\(s\\), 0 booking link\\(s\\) re-encrypted to key ${NEW_ID}`,
      ),
    );
    expect(run.out).toContain('the older keys can go');
    // The old key is gone: everything opens with the new one alone.
    expect(await readEvery(seeded, NEW)).toEqual({
      [`enc2:${NEW_ID}`]: 2000,
      [`pdf:${NEW_ID}`]: 500,
    });
    // Counts and key ids only: no value, no key.
    for (const secret of [...HEALTH, OLD, NEW]) expect(run.out).not.toContain(secret);
    const { rows } = await env.db.query<{ actor: string; detail: Record<string, unknown> }>(
      `SELECT actor, detail FROM records_access_log WHERE action = 'rotate-key'`,
    );
    expect(rows).toEqual([
      {
        actor: 'npm run rotate-key',
        detail: expect.objectContaining({
          toKey: NEW_ID,
          waivers: 1000,
          fields: 2000,
          pdfs: 500,
          bookings: 0,
        }),
      },
    ]);
    expect(JSON.stringify(rows)).toContain(`"enc1:${OLD_ID}":668`);

    // Run again: nothing left to do, and it says so.
    const again = await rotate(['--check']);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`0 stored value(s) not yet sealed with key ${NEW_ID}`);
  });

  test('a crash halfway leaves every row readable with the keys given; a second run finishes the job', async () => {
    const seeded = await seedThousand();
    // Killed (SIGKILL) while its fifth batch of 50 is open: four committed, the fifth rolled back.
    const crashed = await rotate(['--batch=50'], /batch 4 committed/);
    expect(crashed.signal).toBe('SIGKILL');

    const halfway = await readEvery(seeded, NEW, OLD);
    expect(halfway[`enc2:${NEW_ID}`]).toBeGreaterThanOrEqual(400);
    expect(halfway[`enc2:${NEW_ID}`]).toBeLessThan(2000);
    expect(halfway[`enc2:${OLD_ID}`] + halfway[`enc1:${OLD_ID}`]).toBeGreaterThan(0);
    expect((await rotate(['--check'])).out).toMatch(/[1-9]\d* stored value\(s\) not yet sealed/);

    const finished = await rotate(['--batch=50']);
    expect(finished.code).toBe(0);
    expect(finished.out).toContain('the older keys can go');
    expect(await readEvery(seeded, NEW)).toEqual({
      [`enc2:${NEW_ID}`]: 2000,
      [`pdf:${NEW_ID}`]: 500,
    });
  });

  test('a value no key given opens is named by its waiver and left; the rest move, and the old key stays needed', async () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', OLD);
    const seeded = await seedWaivers(env.db, [{}, {}, {}]);
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', randomBytes(32).toString('base64'));
    const [lost] = await seedWaivers(env.db, [{}]);
    vi.unstubAllEnvs();

    const run = await rotate();
    expect(run.code).toBe(1);
    expect(run.err).toContain(`1 waiver(s) could not be opened with the keys given`);
    expect(run.err).toContain(lost!.id);
    expect(run.out).toContain('2 stored value(s) are still not sealed');
    expect(await readEvery(seeded, NEW)).toEqual({ [`enc2:${NEW_ID}`]: 6 });
  });
});
