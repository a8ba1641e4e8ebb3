/**
 * The local mail folder (`MAIL_OUTBOX_DIR`, where mail goes when no `SMTP_URL` is set) holds the
 * studio's records copy of a waiver, health information and all. Its files are the site's only,
 * named by their outbox row, removed by a participant's erasure, and by the retention run a few
 * days after they were written.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import runRetention from '../../functions/retention';
import { useFunctionEnv } from '../fixtures/function-env';
import { sendSignInLink } from '../../src/server/auth/sign-in';
import { desk, signIn, signWaiver, STAFF } from './desk';

const env = useFunctionEnv();
let mailDir: string;

beforeEach(() => {
  mailDir = mkdtempSync(join(tmpdir(), 'mail-files-'));
  vi.stubEnv('MAIL_OUTBOX_DIR', join(mailDir, 'outbox'));
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('WAIVER_RATE_LIMIT', '1000/1m');
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  rmSync(mailDir, { recursive: true, force: true });
});

const outbox = () => join(mailDir, 'outbox');
const files = () => readdirSync(outbox()).sort();

async function mailIds(waiverId: string): Promise<string[]> {
  const { rows } = await env.db.query<{ id: string }>(
    `SELECT id::text FROM mail_outbox WHERE ref = $1 ORDER BY id`,
    [waiverId],
  );
  return rows.map((row) => row.id);
}

test('a waiver’s mails are files of the site’s only, named by their outbox row, and an erasure removes them', async () => {
  // The desk's sign-in link goes through the test's mail server; the waivers' mails to files.
  const cookie = await signIn(env.smtp);
  vi.stubEnv('SMTP_URL', '');

  const ingrid = await signWaiver({ email: 'ingrid@example.test' });
  const other = await signWaiver({ email: 'other@example.test', firstName: 'Other' });
  const ingridFiles = (await mailIds(ingrid)).map((id) => `outbox-${id}.eml`);
  const otherFiles = (await mailIds(other)).map((id) => `outbox-${id}.eml`);
  expect(files()).toEqual([...ingridFiles, ...otherFiles].sort());
  expect(statSync(outbox()).mode & 0o777).toBe(0o700);
  for (const name of files()) expect(statSync(join(outbox(), name)).mode & 0o777).toBe(0o600);
  // The records copy is there whole (its PDF attached): what the folder is guarding.
  expect(
    ingridFiles.some((name) => /application\/pdf/.test(readFileSync(join(outbox(), name), 'utf8'))),
  ).toBe(true);

  const erased = await desk('/api/records/erasure', {
    body: { email: 'ingrid@example.test', confirm: 'ingrid@example.test' },
    cookie,
  });
  expect(erased.status).toBe(200);
  expect(files()).toEqual(otherFiles.sort());
});

test('the retention run removes mail files a week after they were written, and only those', async () => {
  vi.stubEnv('SMTP_URL', '');
  const first = await signWaiver({ email: 'first@example.test' });
  // Written nine days ago.
  const old = new Date(Date.now() - 9 * 86_400_000);
  for (const id of await mailIds(first)) {
    utimesSync(join(outbox(), `outbox-${id}.eml`), old, old);
  }
  const later = await signWaiver({ email: 'later@example.test' });
  const laterFiles = (await mailIds(later)).map((id) => `outbox-${id}.eml`);
  expect(files()).toHaveLength(4);

  const run = await runRetention();
  expect(((await run.json()) as { removed: Record<string, number> }).removed.mailFiles).toBe(2);
  expect(files()).toEqual(laterFiles.sort());
});

test('a sign-in link’s mail is named the same way, by its row: sign-in-<key>.eml, never by the link', async () => {
  vi.stubEnv('SMTP_URL', '');
  // Resolves once the mail is written (the sending it hands back is awaited with it).
  await sendSignInLink(STAFF);
  const { rows } = await env.db.query<{ token_sha256: string }>(
    'SELECT token_sha256 FROM staff_sign_in_links ORDER BY created_at DESC LIMIT 1',
  );
  const key = rows[0]!.token_sha256.slice(0, 16);
  expect(files()).toEqual([`sign-in-${key}.eml`]);
  const mail = readFileSync(join(outbox(), `sign-in-${key}.eml`), 'utf8');
  const token = /#token=([A-Za-z0-9_-]+)/.exec(mail.replace(/=\r?\n/g, ''))?.[1];
  expect(token).toBeTruthy();
  expect(files()[0]).not.toContain(token!.slice(0, 8));
  // One naming for the whole folder: every file is <what>-<its row>.eml.
  await signWaiver({ email: 'named@example.test' });
  for (const name of files()) expect(name).toMatch(/^(outbox-\d+|sign-in-[0-9a-f]{16})\.eml$/);
});
