/**
 * `npm run bench:load`: a bounded local load test of the two forms, end to end.
 *
 * Starts its own SMTP server (no reverse DNS lookups) and `node scripts/serve.ts --no-build` on
 * 127.0.0.1, fires BENCH_CONTACTS (200) contact messages and BENCH_WAIVERS (50) waivers at once
 * (plus BENCH_DUPLICATES (20) repeats of already-sent submission ids, as a double click or a
 * retry would), then checks that exactly one row and the right mails per submission arrived,
 * that no answer was a 5xx, that it all took at most BENCH_TARGET_S (15) seconds, and prints
 * throughput and latency percentiles. Exits 1 when a check fails.
 *
 * The database is a fresh embedded one (`npm start`'s default; `--db=embedded`) or a throwaway
 * PostgreSQL server (`--db=postgres`, Debian's, started by scripts/postgres.ts on a free port),
 * removed afterwards either way. Ports: BENCH_PORT (the server) and +1 (SMTP); free ones when
 * unset.
 *
 * Only ever talks to 127.0.0.1; every request and the whole run have time limits.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { simpleParser } from 'mailparser';
import { percentile, startBenchServer, startCountingSmtp, type BenchServer } from './functions.ts';
import { freePort, startPostgres, type PostgresServer } from '../scripts/postgres.ts';
import { signaturePng } from '../tests/fixtures/signatures.ts';
import { contactBody, waiverBody } from '../tests/fixtures/submissions.ts';

const { values: flags } = parseArgs({ options: { db: { type: 'string', default: 'embedded' } } });
const DATABASE = flags.db === 'postgres' ? 'postgres' : 'embedded';
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 200);
const WAIVERS = Number(process.env.BENCH_WAIVERS ?? 50);
const DUPLICATES = Number(process.env.BENCH_DUPLICATES ?? 20);
const TARGET_S = Number(process.env.BENCH_TARGET_S ?? 15);
const REQUEST_TIMEOUT_MS = Number(process.env.BENCH_REQUEST_TIMEOUT_MS ?? 300_000);
const RUN_TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
const HOST = '127.0.0.1';
const root = process.cwd();
const run = randomUUID().slice(0, 8);
const hasWaiver = existsSync(`${root}/functions/submit-waiver.ts`);

const guard = setTimeout(() => {
  console.error(`✘ the load test took longer than ${RUN_TIMEOUT_MS} ms; stopping`);
  void shutdown(1);
}, RUN_TIMEOUT_MS);

const port = Number(process.env.BENCH_PORT) || (await freePort());
const smtpPort = process.env.BENCH_PORT ? port + 1 : await freePort();

// ---- the mail server -------------------------------------------------------------------------
const subjects: string[] = [];
const smtp = await startCountingSmtp(smtpPort, (raw) => {
  void simpleParser(raw).then((mail) => subjects.push(mail.subject ?? ''));
});

// ---- the site --------------------------------------------------------------------------------
if (!existsSync(`${root}/dist/index.html`)) {
  console.log('No dist/: building the site first');
  const build = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const scratch = await mkdtemp(join(tmpdir(), 'studio-load-'));
let postgres: PostgresServer | undefined;
let server: BenchServer | undefined;
let stopped = false;
async function shutdown(code: number): Promise<never> {
  if (!stopped) {
    stopped = true;
    clearTimeout(guard);
    await server?.stop();
    await postgres?.stop();
    await smtp.close();
    await rm(scratch, { recursive: true, force: true });
  }
  process.exit(code);
}

const env: Record<string, string> = {
  SMTP_URL: `smtp://${HOST}:${smtpPort}`,
  // The counting server speaks plaintext: TLS would measure the handshake, not the site.
  SMTP_ALLOW_PLAINTEXT: 'true',
  // The site's own address: the origin the forms accept (required on an external database).
  SITE_URL: `http://${HOST}:${port}`,
  CONTACT_TO: 'bench-studio@example.test',
  WAIVER_RECORDS_TO: 'bench-records@example.test',
  WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  LOCAL_DB_DIR: join(scratch, 'db'),
  // A mail whose immediate send failed goes out on the next run of the local retry.
  OUTBOX_INTERVAL_MS: '5000',
  OUTBOX_BASE_DELAY_MS: '1000',
  // Every request comes from this one machine: lift the per-client limits for the run.
  CONTACT_RATE_LIMIT: '100000/1m',
  WAIVER_RATE_LIMIT: '100000/1m',
  WAIVER_COPY_LIMIT: '100000/1h',
};
try {
  if (DATABASE === 'postgres') {
    postgres = await startPostgres();
    env.NETLIFY_DB_URL = postgres.url();
  }
  server = await startBenchServer({ root, port, env });
} catch (error) {
  console.error(`✘ the server did not start: ${String(error)}`);
  await shutdown(1);
}
const base = server!.origin;

// The first call of each function compiles its code: time that apart from the load.
for (const path of ['/api/send-email', ...(hasWaiver ? ['/api/submit-waiver'] : [])]) {
  const start = performance.now();
  const warm = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  await warm.body?.cancel();
  console.log(`Warm-up ${path}: ${warm.status} in ${(performance.now() - start).toFixed(0)} ms`);
}

// ---- the submissions -------------------------------------------------------------------------
interface Submission {
  kind: 'contact' | 'waiver';
  url: string;
  body: unknown;
  submissionId: string;
}

/** `count` submissions of one form, each with a submission id of its own. */
function submissions(
  count: number,
  kind: Submission['kind'],
  path: string,
  body: (n: number, submissionId: string) => unknown,
): Submission[] {
  return Array.from({ length: count }, (_, n) => {
    const submissionId = randomUUID();
    return { kind, url: `${base}${path}`, submissionId, body: body(n, submissionId) };
  });
}

const contacts = submissions(CONTACTS, 'contact', '/api/send-email', (n, submissionId) =>
  contactBody({
    name: `Load ${run} Contact ${n}`,
    email: `load${n}@example.test`,
    service: 'private-session',
    message: `Load test ${run}, message ${n}.\nDo you have room on Tuesdays?`,
    submissionId,
  }),
);
const waivers = hasWaiver
  ? submissions(WAIVERS, 'waiver', '/api/submit-waiver', (n, submissionId) =>
      waiverBody({
        firstName: `Load${run}`,
        lastName: `Waiver${n}`,
        email: `waiver${n}@example.test`,
        agreedToPhotos: n % 2 === 0,
        signature: signaturePng(400, 200, { seed: n }),
        submissionId,
      }),
    )
  : [];
const originals = [...contacts, ...waivers];
const duplicates = Array.from(
  { length: Math.min(DUPLICATES, originals.length) },
  (_, n) => originals[(n * 7) % originals.length],
);

interface Result {
  kind: string;
  status: number;
  ms: number;
  id?: string;
}

const errorSamples = new Set<string>();

async function submit(submission: Submission): Promise<Result> {
  const start = performance.now();
  try {
    const response = await fetch(submission.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify(submission.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let answer: { id?: string } | null = null;
    try {
      answer = JSON.parse(text) as { id?: string };
    } catch {
      answer = null;
    }
    if (response.status >= 500 && errorSamples.size < 5) errorSamples.add(text.slice(0, 300));
    return {
      kind: submission.kind,
      status: response.status,
      ms: performance.now() - start,
      id: answer?.id,
    };
  } catch (error) {
    return { kind: submission.kind, status: 0, ms: performance.now() - start, id: String(error) };
  }
}

console.log(
  `Firing ${contacts.length} contact messages, ${waivers.length} waivers and ` +
    `${duplicates.length} repeated submissions at ${base} at once` +
    (hasWaiver ? '' : ' (no waiver function in this tree: contact only)'),
);
const started = performance.now();
const results = await Promise.all([...originals, ...duplicates].map(submit));
const wallMs = performance.now() - started;

// ---- the checks ------------------------------------------------------------------------------
const failures: string[] = [];
const check = (ok: boolean, message: string) => {
  if (!ok) failures.push(message);
};

const byStatus = new Map<number, number>();
for (const { status } of results) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
check(![...byStatus.keys()].some((status) => status >= 500 || status === 0), 'a 5xx or no answer');
check(
  wallMs <= TARGET_S * 1000,
  `all answered within ${TARGET_S} s (took ${(wallMs / 1000).toFixed(2)} s)`,
);
check(
  results.every((result) => result.status === 200),
  `every answer 200 (got ${JSON.stringify(Object.fromEntries(byStatus))})`,
);

const expectedMails = contacts.length + waivers.length * 2;
const mailDeadline = Date.now() + 60_000;
const ours = () =>
  subjects.filter((subject) => subject.includes(run) || subject.includes('Your signed'));
while (ours().length < expectedMails && Date.now() < mailDeadline) {
  await new Promise((resolve) => setTimeout(resolve, 250));
}
// A late duplicate would arrive now.
await new Promise((resolve) => setTimeout(resolve, 3_000));

// The server's own way in to its database (for the embedded one, its one-session proxy).
const pool = new pg.Pool({ connectionString: server!.databaseUrl, max: 2 });
const contactIds = contacts.map((submission) => submission.submissionId);
const waiverIds = waivers.map((submission) => submission.submissionId);
const [{ n: contactRows }] = (
  await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM contact_messages WHERE submission_id = ANY($1::uuid[])',
    [contactIds],
  )
).rows;
const [{ n: contactMailsSent }] = (
  await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM mail_outbox o JOIN contact_messages c
        ON o.kind = 'contact' AND o.ref = c.id::text
      WHERE c.submission_id = ANY($1::uuid[]) AND o.sent_at IS NOT NULL`,
    [contactIds],
  )
).rows;
let waiverRows = 0;
if (hasWaiver) {
  waiverRows = (
    await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM waivers WHERE submission_id = ANY($1::uuid[])',
      [waiverIds],
    )
  ).rows[0].n;
}
const contactMails = subjects.filter((subject) =>
  subject.startsWith(`New Inquiry from Load ${run}`),
);
const waiverMails = subjects.filter((subject) => subject.includes(`Load${run}`));
const participantMails = subjects.filter((subject) => subject.startsWith('Your signed'));

check(contactRows === contacts.length, `contact rows ${contactRows}, expected ${contacts.length}`);
check(
  contactMailsSent === contacts.length,
  `contact outbox rows sent ${contactMailsSent}, expected ${contacts.length}`,
);
check(
  contactMails.length === contacts.length && new Set(contactMails).size === contacts.length,
  `contact mails ${contactMails.length} (${new Set(contactMails).size} distinct), expected ${contacts.length}`,
);
if (hasWaiver) {
  check(waiverRows === waivers.length, `waiver rows ${waiverRows}, expected ${waivers.length}`);
  check(
    waiverMails.length === waivers.length && new Set(waiverMails).size === waivers.length,
    `waiver records mails ${waiverMails.length}, expected ${waivers.length}`,
  );
  check(
    participantMails.length === waivers.length,
    `participant copies ${participantMails.length}, expected ${waivers.length}`,
  );
}
// A contact answer names its submission id, a waiver answer its record id; a repeated submission
// must get exactly the answer its first sending got.
const answerOf = new Map<string, string | undefined>();
originals.forEach((submission, n) => answerOf.set(submission.submissionId, results[n].id));
const idsMatch = results.every((result, n) => {
  if (result.status !== 200) return true;
  if (n >= originals.length) {
    return result.id === answerOf.get(duplicates[n - originals.length].submissionId);
  }
  const submission = originals[n];
  return submission.kind === 'contact'
    ? result.id === submission.submissionId
    : typeof result.id === 'string' && result.id.length > 0;
});
check(idsMatch, 'every answer names its submission, and a repeat gets the first answer');

await pool.end();

// ---- the figures -----------------------------------------------------------------------------
function line(label: string, rows: Result[]) {
  if (rows.length === 0) return;
  const ms = rows.map((row) => row.ms);
  console.log(
    `${label.padEnd(10)} n=${String(rows.length).padStart(3)}  p50 ${percentile(ms, 50).toFixed(0)} ms` +
      `  p95 ${percentile(ms, 95).toFixed(0)} ms  p99 ${percentile(ms, 99).toFixed(0)} ms` +
      `  max ${Math.max(...ms).toFixed(0)} ms`,
  );
}
console.log('');
console.log(
  `${results.length} requests in ${(wallMs / 1000).toFixed(2)} s: ` +
    `${(results.length / (wallMs / 1000)).toFixed(1)} requests/s; statuses ${JSON.stringify(Object.fromEntries(byStatus))}`,
);
line('all', results);
line('contact', results.slice(0, contacts.length));
line('waiver', results.slice(contacts.length, originals.length));
line('repeats', results.slice(originals.length));
console.log(
  `rows: ${contactRows} contact messages${hasWaiver ? `, ${waiverRows} waivers` : ''}; ` +
    `mails: ${contactMails.length} inquiries${hasWaiver ? `, ${waiverMails.length} waiver records, ${participantMails.length} participant copies` : ''}`,
);
if (failures.length > 0) {
  console.error(`\n✘ ${failures.join('\n✘ ')}`);
  for (const sample of errorSamples) console.error(`  a 5xx answer: ${sample}`);
  const log = server!.output();
  if (process.env.BENCH_SERVER_LOG) writeFileSync(process.env.BENCH_SERVER_LOG, log);
  console.error(log.split('\n').slice(-30).join('\n'));
  await shutdown(1);
}
console.log(
  `\n✔ ${DATABASE} database: exactly one row and the right mails per submission, no 5xx, ` +
    `all answered in ${(wallMs / 1000).toFixed(2)} s (target ${TARGET_S} s)`,
);
await shutdown(0);
