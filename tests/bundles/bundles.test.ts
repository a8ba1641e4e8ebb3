/**
 * The production bundles: functions/ bundled by Netlify's own bundler with netlify.toml's
 * settings, each zip unpacked into a temporary folder outside the repository, and each function
 * loaded from there by a fresh Node 24 process whose working directory is that folder (as
 * Netlify runs it from /var/task), then called for real against the run's PostgreSQL server and
 * a real SMTP server. A file the functions read at run time that the bundle lacks (an included
 * content file, a font, a dependency) fails here, not in production.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, globSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Config } from '@netlify/functions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { readSiteConfig } from '../../scripts/server/netlify-config.ts';
import { bundleFunctions, type Bundle } from '../fixtures/bundles';
import { busyCalendar, studioToday } from '../fixtures/busy-calendar';
import { useFunctionEnv } from '../fixtures/function-env';
import { startInstance, type Call, type Instance } from '../fixtures/instances';
import { pdfText } from '../fixtures/pdf-text';
import { startWsProxy, type WsProxy } from '../fixtures/ws-proxy';
import { bookingBody, contactBody, waiverBody, waiverFields } from '../fixtures/submissions';

const ROOT = resolve(import.meta.dirname, '../..');
/** The function Netlify's Astro adapter writes for the pages rendered on demand. */
const ON_DEMAND = 'ssr';
// No CONTACT_TO or WAIVER_RECORDS_TO: the studio's address comes from content/site.yaml, which
// the functions must then find inside their bundle.
const { email: STUDIO } = parse(await readFile(join(ROOT, 'content/site.yaml'), 'utf8')) as {
  email: string;
};

const env = useFunctionEnv();

let out: string;
let bundles: Bundle[];
let proxy: WsProxy;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'pilates-bundles-'));
  [bundles, proxy] = await Promise.all([bundleFunctions(ROOT, out), startWsProxy()]);
  const sizes = bundles.map((b) => `${b.name} ${(b.zipBytes / 1024 / 1024).toFixed(2)} MB`);
  console.info(`Netlify bundles: ${sizes.join(', ')}`);
});

afterAll(async () => {
  await proxy?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

const bundle = (name: string) => {
  const found = bundles.find((b) => b.name === name);
  if (!found) throw new Error(`no bundle named ${name}`);
  return found;
};

describe('what Netlify deploys', () => {
  test('every file in functions/ becomes a v2 bundle, unpacked outside the repository, and so does the function of the pages rendered on demand', async () => {
    const sources = (await readdir(join(ROOT, 'functions')))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.replace(/\.ts$/, ''));
    expect(bundles.map((b) => b.name).sort()).toEqual([...sources, ON_DEMAND].sort());
    for (const b of bundles) {
      expect(relative(ROOT, b.dir).startsWith('..')).toBe(true);
      expect(b.runtimeAPIVersion).toBe(2);
      expect(b.files).toContain(relative(b.dir, b.entry));
      expect(b.files).toContain(relative(b.dir, b.module));
    }
  });

  test("Netlify's bundler reads every function's config from its source: its paths, or its schedule", async () => {
    for (const b of bundles.filter(({ name }) => name !== ON_DEMAND)) {
      const { config } = (await import(`../../functions/${b.name}.ts`)) as { config: Config };
      expect(b.paths, b.name).toEqual([config.path ?? []].flat());
      expect(b.schedule, b.name).toBe(config.schedule);
      expect(b.paths.length > 0 || b.schedule !== undefined, b.name).toBe(true);
    }
  });

  test("each bundle carries netlify.toml's included_files", async () => {
    const { functions } = await readSiteConfig(ROOT);
    // A pattern (`content/sessions/*.md`) names the files it matches.
    const included = (functions['*']?.includedFiles ?? []).flatMap((file) =>
      file.includes('*') ? globSync(file, { cwd: ROOT }) : [file],
    );
    expect(included.length).toBeGreaterThan(0);
    for (const b of bundles) {
      // The adapter's function takes the files netlify.toml names (astro.config.mjs) that the
      // build left: the functions' pages are no longer built pages.
      const files =
        b.name === ON_DEMAND ? included.filter((file) => existsSync(join(ROOT, file))) : included;
      for (const file of files) expect(b.files, b.name).toContain(file);
    }
  });
});

function contactCall(fields: Record<string, unknown> = {}): Call {
  const url = 'https://studio.example.test/api/send-email';
  return {
    url,
    headers: { origin: new URL(url).origin, 'content-type': 'application/json' },
    body: JSON.stringify(
      contactBody({
        name: 'Bundle Visitor',
        email: 'bundle.visitor@example.test',
        message: 'Sent through the production bundle.',
        ...fields,
      }),
    ),
    ip: '198.51.100.77',
  };
}

function waiverCall(): Call {
  const url = 'https://studio.example.test/api/submit-waiver';
  return {
    url,
    headers: { origin: new URL(url).origin, 'content-type': 'application/json' },
    body: JSON.stringify(
      waiverBody({
        firstName: 'Bundled',
        lastName: 'Participant',
        email: 'participant@example.test',
        emergencyName: 'Emergency Contact',
        medicalConditions: 'Old ankle sprain',
        medications: 'None',
        submissionId: randomUUID(),
      }),
    ),
    ip: '198.51.100.78',
  };
}

// On Netlify the functions use Neon's serverless driver; self-hosted, `pg`. The bundle carries both.
describe.each(['serverless', 'server'] as const)('the bundles with the %s driver', (driver) => {
  const running: Instance[] = [];

  afterAll(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
  });

  async function run(name: string, call: Call, extraEnv: Record<string, string> = {}) {
    const b = bundle(name);
    const instance = await startInstance({
      module: b.module,
      cwd: b.dir,
      neonProxy: driver === 'serverless' ? `${proxy.host}:${proxy.port}` : undefined,
      env: {
        NETLIFY_DB_URL: env.url,
        NETLIFY_DB_DRIVER: driver,
        SMTP_URL: env.smtp.url,
        MAIL_FROM: '"Studio website" <website@studio.example.test>',
        SITE_URL: 'https://studio.example.test',
        WAIVER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        // What Netlify's runtime sets: the function knows it is deployed.
        LAMBDA_TASK_ROOT: b.dir,
        AWS_LAMBDA_FUNCTION_NAME: name,
        ...extraEnv,
      },
    });
    running.push(instance);
    const before = proxy.connections;
    const [answer] = await instance.run([call]);
    if (answer!.error || answer!.status >= 500) {
      throw new Error(
        `${name}: ${answer!.status} ${answer!.body}\n${answer!.error ?? ''}\n${instance.output()}`,
      );
    }
    if (driver === 'serverless') expect(proxy.connections).toBeGreaterThan(before);
    return answer!;
  }

  /** Waits for `count` mails; if they do not come, says what the instances and the outbox say. */
  async function mails(count: number) {
    try {
      await env.smtp.waitForMails(count, 5_000);
    } catch (error) {
      const { rows } = await env.db.query('SELECT kind, attempts, last_error FROM mail_outbox');
      const logs = running.map((instance) => instance.output()).join('\n');
      throw new Error(`${(error as Error).message}\noutbox: ${JSON.stringify(rows)}\n${logs}`, {
        cause: error,
      });
    }
  }

  test('send-email stores a real message and mails it to the studio', async () => {
    const answer = await run('send-email', contactCall());
    expect(answer.status).toBe(200);
    const { rows } = await env.db.query<{ name: string }>('SELECT name FROM contact_messages');
    expect(rows).toEqual([{ name: 'Bundle Visitor' }]);
    await mails(1);
    const [mail] = env.smtp.mails;
    expect(mail!.envelope.to).toEqual([STUDIO]);
    expect(mail!.subject).toBe('New Inquiry from Bundle Visitor');
  });

  test('submit-waiver files a waiver, renders its PDF with the waiver text, and sends both mails', async () => {
    const answer = await run('submit-waiver', waiverCall());
    expect(answer.status).toBe(200);
    expect(await env.count('waivers')).toBe(1);
    await mails(2);
    const records = env.smtp.mails.find((mail) => mail.envelope.to.includes(STUDIO));
    const participant = env.smtp.mails.find((mail) =>
      mail.envelope.to.includes('participant@example.test'),
    );
    expect(participant).toBeDefined();
    const pdf = records?.attachments.find((file) => file.contentType === 'application/pdf');
    expect(pdf).toBeDefined();
    const text = await pdfText(pdf!.content);
    expect(text).toContain('Bundled Participant');
    // The waiver text itself comes from content/waiver.md, read inside the bundle.
    const { rows } = await env.db.query<{ text: string }>('SELECT text FROM waiver_texts');
    const firstWords = rows[0]!.text
      .replace(/[#*_>`-]/g, ' ')
      .trim()
      .split(/\s+/)
      .slice(0, 4);
    expect(text.replace(/\s+/g, ' ')).toContain(firstWords.join(' '));
  });

  test('submit-waiver, posted without JavaScript, draws the typed name with the font the bundle carries', async () => {
    const url = 'https://studio.example.test/api/submit-waiver';
    const fields = waiverFields({
      firstName: 'Typed',
      lastName: 'Participant',
      email: 'typed.participant@example.test',
      signature: '',
    });
    const answer = await run('submit-waiver', {
      url,
      headers: {
        origin: new URL(url).origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        ...Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, String(value)])),
        agreedToTerms: 'on',
        signatureName: 'Typed Participant',
      }).toString(),
      ip: '198.51.100.79',
    });
    expect(answer.status).toBe(303);
    const { rows } = await env.db.query<{ signature_kind: string; signature_png: Uint8Array }>(
      'SELECT signature_kind, signature_png FROM waivers',
    );
    expect(rows[0]!.signature_kind).toBe('typed-server');
    expect(Buffer.from(rows[0]!.signature_png).length).toBeGreaterThan(2_000);
    await mails(2);
  });

  test('list-signup mails a confirmation whose link the on-demand pages answer in the built layout, and whose unsubscribe link takes a one-click POST', async () => {
    const url = 'https://studio.example.test/api/notify';
    const before = env.smtp.mails.length;
    const signedUp = await run('list-signup', {
      url,
      headers: { origin: new URL(url).origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${driver}.reader%40example.test&website=`,
      ip: '198.51.100.81',
    });
    expect(signedUp.status).toBe(303);
    await mails(before + 1);
    const mail = env.smtp.mails[before]!;
    expect(mail.text).toContain('2140 SE Division St');
    const link = /https:\/\/studio\.example\.test\/notify\/confirm\?token=[\w-]{43}/.exec(
      mail.text ?? '',
    )![0];
    const page = await run(ON_DEMAND, { url: link, method: 'GET' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Confirm your address');
    const built = await readFile(join(ROOT, 'dist/_headers'), 'utf8');
    // The built policy, with the hash of the page's own style.
    const scripts = /script-src [^;]+/.exec(page.headers['content-security-policy']!)![0];
    expect(built).toContain(scripts);
    const unsubscribe = /<(https:[^>]+)>/.exec(
      mail.headerLines.find((line) => line.key === 'list-unsubscribe')!.line,
    )![1];
    const left = await run(ON_DEMAND, {
      url: unsubscribe,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(left.status).toBe(200);
    expect(left.body).toContain('You are unsubscribed');
  });

  test('the on-demand pages answer /consultation in the built layout with the slots free now, under the built policy, and book-consultation books one with its invites', async () => {
    const page = await run(ON_DEMAND, {
      url: 'https://studio.example.test/consultation',
      method: 'GET',
    });
    expect(page.status).toBe(200);
    // The page Astro built, from inside the bundle: its layout, its island, its policy.
    expect(page.body).toContain('astro-island');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
    const built = await readFile(join(ROOT, 'dist/_headers'), 'utf8');
    // The built policy, with the hash of the page's own style.
    const scripts = /script-src [^;]+/.exec(page.headers['content-security-policy']!)![0];
    expect(built).toContain(scripts);
    const slot = /name="slot" value="([^"]+)"/.exec(page.body)?.[1];
    expect(slot).toBeDefined();

    const url = 'https://studio.example.test/api/consultation/book';
    const booked = await run('book-consultation', {
      url,
      headers: { origin: new URL(url).origin, 'content-type': 'application/json' },
      body: JSON.stringify(bookingBody(slot!, { email: 'booker@example.test' })),
      ip: '198.51.100.80',
    });
    expect(booked.status).toBe(200);
    await mails(2);
    const invite = env.smtp.mails
      .find((mail) => mail.envelope.to.includes('booker@example.test'))
      ?.attachments.find((file) => file.contentType === 'text/calendar');
    expect(invite?.content.toString()).toContain('METHOD:REQUEST');
  });

  // (It reads no database: once, with the `pg` driver.)
  test.skipIf(driver === 'serverless')(
    'a path nothing answers gets the 404 page from the on-demand pages, with the site’s headers (Netlify applies _headers to static files only)',
    async () => {
      const page = await run(ON_DEMAND, {
        url: 'https://studio.example.test/no-such-page',
        method: 'GET',
      });
      expect(page.status).toBe(404);
      expect(page.body).toContain('Oops! Page not found');
      expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['x-robots-tag']).toMatch(/noindex/);
    },
  );

  test("/consultation reads the instructor's calendar in its worker thread, from the files the bundle ships", async () => {
    await env.db.exec('DELETE FROM consultation_busy_feed');
    const calendar = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar' });
      res.end(busyCalendar(studioToday()));
    });
    await new Promise<void>((done) => calendar.listen(0, '127.0.0.1', done));
    try {
      const { port } = calendar.address() as AddressInfo;
      const page = await run(
        ON_DEMAND,
        { url: 'https://studio.example.test/consultation', method: 'GET' },
        { CONSULTATION_BUSY_ICS_URL: `http://127.0.0.1:${port}/busy.ics` },
      );
      expect(page.status).toBe(200);
      // No copy yet: the page waited for the read, done by busy-worker.ts inside the bundle.
      const { rows } = await env.db.query<{
        events: number;
        error: string | null;
        busy: unknown[];
      }>('SELECT events, error, busy FROM consultation_busy_feed');
      expect(rows[0]).toMatchObject({ events: 1, error: null });
      expect(rows[0]!.busy.length).toBeGreaterThan(0);
    } finally {
      calendar.closeAllConnections();
      await new Promise((done) => calendar.close(done));
    }
  });

  test('retry-mail sends the mail the outage left owed', async () => {
    env.smtp.setFailing(true);
    expect((await run('send-email', contactCall({ name: 'Owed Visitor' }))).status).toBe(200);
    expect(env.smtp.mails).toHaveLength(0);
    env.smtp.setFailing(false);
    await env.db.exec('UPDATE mail_outbox SET next_attempt_at = now()');
    const answer = await run('retry-mail', {
      url: 'https://studio.example.test/.netlify/functions/retry-mail',
      body: JSON.stringify({ next_run: new Date().toISOString() }),
    });
    expect(answer.status).toBe(200);
    await mails(1);
    expect(env.smtp.mails[0]!.subject).toBe('New Inquiry from Owed Visitor');
    const { rows } = await env.db.query<{ sent: boolean }>(
      'SELECT sent_at IS NOT NULL AS sent FROM mail_outbox',
    );
    expect(rows).toEqual([{ sent: true }]);
  });

  test('retention removes the spam past its keeping time, and leaves its tombstone', async () => {
    await env.db.query(
      `INSERT INTO contact_messages (name, email, message, created_at, spam_reason) VALUES
         ('Old spam', 'old@example.test', 'Buy', now() - interval '40 days', 'honeypot'),
         ('New spam', 'new@example.test', 'Buy', now() - interval '2 days', 'honeypot')`,
    );
    const answer = await run('retention', {
      url: 'https://studio.example.test/.netlify/functions/retention',
      body: JSON.stringify({ next_run: new Date().toISOString() }),
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ success: true, removed: { spamMessages: 1 } });
    const { rows } = await env.db.query<{ name: string }>('SELECT name FROM contact_messages');
    expect(rows).toEqual([{ name: 'New spam' }]);
    expect(await env.count(`records_access_log WHERE action = 'retention'`)).toBe(1);
  });
});
