import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Context } from '@netlify/functions';
import submitWaiver from '../../functions/submit-waiver';
import { currentWaiverText, sha256 } from '../../src/server/waiver/current-text';
import { outbox } from '../../src/server/mail-kinds';
import { advanceClock, setClock } from '../../src/server/platform/clock';
import { undeliveredCount } from '../../src/server/records/delivery';
import { waiverView } from '../../src/server/records/waivers';
import { waiverBlocks } from '../../src/shared/waiver-blocks';
import { useFunctionEnv } from '../fixtures/function-env';
import { noisyPng, signaturePng } from '../fixtures/signatures';
import { pdfText } from '../fixtures/pdf-text';
import { waiverFields } from '../fixtures/submissions';

const RECORDS = 'waiver-records@example.test';
const IP = '203.0.113.7';
const AGENT = 'Mozilla/5.0 (test) WaiverTest/1.0';
// The studio's own address, from content/site.yaml: where a participant asks for a full copy.
const STUDIO_EMAIL = 'hello@stillpointpilates.studio';

// A database of this file's own and the SMTP server, both emptied (and the mail server
// accepting again) before each test.
const env = useFunctionEnv();
const { count } = env;

beforeAll(() => {
  process.env.WAIVER_RECORDS_TO = RECORDS;
});

const SIGNATURE = signaturePng();
const validWaiver = waiverFields;

// As the site's own page sends it: same-origin `Origin`, an empty honeypot and the time the
// page was open (see the security tests for what happens otherwise).
function post(body: unknown, init: RequestInit = {}) {
  const form = typeof body === 'object' && body !== null ? { website: '', fillTimeMs: 20_000 } : {};
  return new Request('http://127.0.0.1:8888/api/submit-waiver', {
    method: 'POST',
    ...init,
    headers: {
      origin: 'http://127.0.0.1:8888',
      'content-type': 'application/json',
      'user-agent': AGENT,
      ...(init.headers as Record<string, string> | undefined),
    },
    body: typeof body === 'string' ? body : JSON.stringify({ ...form, ...(body as object) }),
  });
}

const context = { ip: IP } as Context;

const squash = (text: string) => text.replace(/\s+/g, '');

describe('POST /api/submit-waiver', () => {
  test('stores a valid waiver once with its audit trail and the hash of the text signed', async () => {
    const before = Date.now();
    const response = await submitWaiver(post({ waiver: validWaiver() }), context);
    const after = Date.now();
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ success: true, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const { rows } = await env.db.query<Record<string, unknown>>('SELECT * FROM waivers');
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const text = currentWaiverText();
    expect(row).toMatchObject({
      id: body.id,
      first_name: 'Ingrid',
      last_name: 'Okonkwo',
      email: 'ingrid@example.test',
      emergency_name: 'Tomas Okonkwo',
      // Health data is encrypted at rest (the security tests read it back).
      medical_conditions: expect.stringMatching(/^enc2:/),
      medications: expect.stringMatching(/^enc2:/),
      agreed_to_terms: true,
      agreed_to_photos: true,
      client_ip: IP,
      user_agent: AGENT,
      waiver_text_sha256: text.sha256,
    });
    const png = Buffer.from(SIGNATURE.split(',')[1]!, 'base64');
    expect(Buffer.from(row.signature_png as Uint8Array).equals(png)).toBe(true);
    // Stamped by the server while the request was being handled (to the millisecond).
    const created = new Date(row.created_at as string).getTime();
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(after + 1);
    const mails = await env.db.query<{ kind: string; sent_at: Date | null }>(
      'SELECT kind, sent_at FROM mail_outbox WHERE ref = $1 ORDER BY kind',
      [body.id],
    );
    expect(mails.rows.map((mail) => mail.kind)).toEqual(['waiver-participant', 'waiver-records']);
    expect(mails.rows.every((mail) => mail.sent_at instanceof Date)).toBe(true);

    const texts = await env.db.query<{ sha256: string; version: string; text: string }>(
      'SELECT sha256, version, text FROM waiver_texts',
    );
    expect(texts.rows).toHaveLength(1);
    expect(texts.rows[0]!.version).toBe(text.version);
    expect(sha256(texts.rows[0]!.text)).toBe(text.sha256);
  });

  test('keeps each waiver text once however many people sign it', async () => {
    await submitWaiver(post({ waiver: validWaiver() }), context);
    await submitWaiver(post({ waiver: validWaiver({ firstName: 'Ana' }) }), context);
    expect(await count('waivers')).toBe(2);
    expect(await count('waiver_texts')).toBe(1);
  });

  test('mails the full PDF to the records inbox, and the participant a copy with none of the details typed', async () => {
    const response = await submitWaiver(post({ waiver: validWaiver() }), context);
    const { id } = await response.json();
    await env.smtp.waitForMails(2);

    const records = env.smtp.mails.find((m) => m.envelope.to.includes(RECORDS))!;
    const participant = env.smtp.mails.find((m) => m.envelope.to.includes('ingrid@example.test'))!;
    expect(records).toBeDefined();
    expect(participant).toBeDefined();
    expect(records.subject).toContain('Ingrid Okonkwo');
    expect(records.replyTo?.text).toContain('ingrid@example.test');

    const text = currentWaiverText();
    const blocks = waiverBlocks(text.text).map((block) => squash(block.text));
    // Page footers land between the lines of a paragraph that spans two pages.
    const textOf = async (mail: typeof records) =>
      (await pdfText(mail.attachments[0]!.content)).replace(
        / ?Still Point Pilates - waiver \S+ - page \d+ of \d+ ?/g,
        ' ',
      );
    for (const mail of [records, participant]) {
      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0]!.contentType).toBe('application/pdf');
      const pdf = await textOf(mail);
      for (const expected of ['Still Point Pilates', 'Ingrid', id, text.sha256, text.version]) {
        expect(squash(pdf)).toContain(squash(expected));
      }
      expect(pdf).toContain('promotional photos: Yes');
      for (const block of blocks) expect(squash(pdf)).toContain(block);
    }

    const full = await textOf(records);
    for (const expected of [
      'Ingrid Okonkwo',
      'ingrid@example.test',
      'Tomas Okonkwo',
      '503-555-0199',
      'Mild scoliosis',
      'Ibuprofen',
      IP,
      AGENT,
    ]) {
      expect(squash(full)).toContain(squash(expected));
    }
    expect(full).toMatch(/Signed at \(UTC\): \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
  });

  test("the participant's copy goes to an address nobody verified: nothing typed in it but the first name", async () => {
    // Every field a stranger could fill with an advertisement, a link or someone's secrets.
    const typed = {
      lastName: 'Zedlast',
      email: 'Target.Person@Example.test',
      phone: '+1 555 013 9977',
      emergencyName: 'Emergencyzed Person',
      emergencyPhone: '555 013 4488',
      medicalConditions: 'Medicalzed condition',
      medications: 'Medicationzed pill',
    };
    const response = await submitWaiver(
      post(
        { waiver: validWaiver(typed) },
        { headers: { 'user-agent': 'Agentzed/1.0 buy-now.example' } },
      ),
      context,
    );
    expect(response.status).toBe(200);
    const { id } = await response.json();
    await env.smtp.waitForMails(2);
    const copy = env.smtp.mails.find((m) =>
      m.envelope.to.some((to) => to.toLowerCase() === 'target.person@example.test'),
    )!;
    expect(copy).toBeDefined();
    const pdf = copy.attachments[0]!;
    const parts = [
      copy.subject,
      copy.text,
      copy.html,
      copy.replyTo?.text,
      pdf.filename,
      await pdfText(pdf.content),
      pdf.content.toString('latin1'),
    ].map(String);
    for (const part of parts) {
      for (const value of [...Object.values(typed), 'Agentzed', 'buy-now', IP]) {
        expect(part.toLowerCase()).not.toContain(value.toLowerCase());
      }
    }
    // No picture either: a drawn "signature" could be a drawn advertisement.
    expect(pdf.content.toString('latin1')).not.toMatch(/\/Subtype\s*\/Image/);
    // What it holds instead: the first name, the day, the text signed, how to get the rest.
    const words = squash(await pdfText(pdf.content));
    for (const expected of ['Ingrid', id, currentWaiverText().version, STUDIO_EMAIL]) {
      expect(words).toContain(squash(expected));
    }
    expect(copy.text).toContain('Hello Ingrid,');
    expect(copy.text).toContain(STUDIO_EMAIL);
    expect(pdf.filename).toMatch(/^waiver-\d{4}-\d{2}-\d{2}-copy\.pdf$/);
  });

  test('keeps the waiver and answers success when the mail server is down, then mails both copies once it is back', async () => {
    env.smtp.setFailing(true);
    const response = await submitWaiver(post({ waiver: validWaiver() }), context);
    expect(response.status).toBe(200);
    const { id } = await response.json();
    const mails = () =>
      env.db.query<{ kind: string; sent_at: Date | null; attempts: number }>(
        'SELECT kind, sent_at, attempts FROM mail_outbox WHERE ref = $1 ORDER BY kind',
        [id],
      );
    expect((await mails()).rows).toEqual([
      { kind: 'waiver-participant', sent_at: null, attempts: 1 },
      { kind: 'waiver-records', sent_at: null, attempts: 1 },
    ]);

    env.smtp.setFailing(false);
    // Due now rather than after the backoff, as if the minutes had passed.
    await env.db.query('UPDATE mail_outbox SET next_attempt_at = now()');
    expect(await outbox.drain()).toMatchObject({ sent: 2, retrying: 0, failed: 0 });
    await env.smtp.waitForMails(2);
    expect(await outbox.drain()).toMatchObject({ sent: 0 });
    expect(env.smtp.mails.map((mail) => mail.envelope.to[0]).sort()).toEqual([
      'ingrid@example.test',
      RECORDS,
    ]);
    expect((await mails()).rows.every((mail) => mail.sent_at instanceof Date)).toBe(true);
  });

  test('concurrent posts of one submission id file one waiver, send two mails and all answer with its id', async () => {
    const submissionId = '5f0c1e9a-3b7d-4c2e-9a41-8d2f6b1c7e03';
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        submitWaiver(post({ waiver: validWaiver({ submissionId }) }), context),
      ),
    );
    const bodies = await Promise.all(responses.map((response) => response.json()));
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(200));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(await count('waivers')).toBe(1);
    expect(await count('mail_outbox')).toBe(2);
    await env.smtp.waitForMails(2);
    expect(env.smtp.mails).toHaveLength(2);
  });

  test("a submission id sent again with another participant's details gets 409 and files nothing", async () => {
    const submissionId = crypto.randomUUID();
    const first = await submitWaiver(post({ waiver: validWaiver({ submissionId }) }), context);
    expect(first.status).toBe(200);
    const other = await submitWaiver(
      post({ waiver: validWaiver({ submissionId, firstName: 'Mallory' }) }),
      context,
    );
    expect(other.status).toBe(409);
    expect((await other.json()).error).toMatch(/already sent with other details/);
    expect(await count('waivers')).toBe(1);
    expect(await count('mail_outbox')).toBe(2);
  });

  test('a submission id that is not a UUID gets 422 and files nothing', async () => {
    const response = await submitWaiver(
      post({ waiver: validWaiver({ submissionId: 'not-a-uuid' }) }),
      context,
    );
    expect(response.status).toBe(422);
    expect((await response.json()).error).toMatch(/reload the page/);
    expect(await count('waivers')).toBe(0);
    expect(await count('mail_outbox')).toBe(0);
  });

  const bad: [string, () => Request, number, RegExp][] = [
    [
      'terms not agreed',
      () => post({ waiver: validWaiver({ agreedToTerms: false }) }),
      422,
      /agree/i,
    ],
    [
      'a missing first name',
      () => post({ waiver: validWaiver({ firstName: undefined }) }),
      422,
      /first name/i,
    ],
    [
      'a blank emergency phone',
      () => post({ waiver: validWaiver({ emergencyPhone: '  ' }) }),
      422,
      /emergency contact's phone/i,
    ],
    [
      'an invalid e-mail',
      () => post({ waiver: validWaiver({ email: 'not-an-email' }) }),
      422,
      /e-mail/i,
    ],
    [
      'a missing signature',
      () => post({ waiver: validWaiver({ signature: '' }) }),
      422,
      /signature/i,
    ],
    [
      'a signature that is not a PNG',
      () =>
        post({
          waiver: validWaiver({
            signature: `data:image/png;base64,${Buffer.from('GIF89a not really a png at all, just text').toString('base64')}`,
          }),
        }),
      422,
      /not a PNG/i,
    ],
    [
      'a JPEG data URL',
      () =>
        post({
          waiver: validWaiver({
            signature: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBD',
          }),
        }),
      422,
      /PNG/,
    ],
    [
      'a blank PNG',
      () => post({ waiver: validWaiver({ signature: signaturePng(400, 200, { blank: true }) }) }),
      422,
      /empty/i,
    ],
    [
      'a PNG with oversized dimensions',
      () => post({ waiver: validWaiver({ signature: signaturePng(3000, 1500) }) }),
      422,
      /pixels/i,
    ],
    [
      'a PNG too tiny to be a signature',
      () => post({ waiver: validWaiver({ signature: signaturePng(40, 20) }) }),
      422,
      /pixels/i,
    ],
    [
      'a signature over 512 KB',
      () => post({ waiver: validWaiver({ signature: noisyPng(600, 300) }) }),
      422,
      /too large/i,
    ],
    [
      'a truncated PNG',
      () => post({ waiver: validWaiver({ signature: SIGNATURE.slice(0, 200) }) }),
      422,
      /damaged/i,
    ],
    ['broken JSON', () => post('{"waiver": {"firstName": "Ingrid",'), 400, /could not be read/],
    ['a body without the waiver field', () => post({ firstName: 'Ingrid' }), 422, /waiver/i],
    [
      'a body in another character set',
      () =>
        post('{"waiver": {}}', { headers: { 'content-type': 'application/json; charset=utf-16' } }),
      415,
      /format/,
    ],
    ['a GET', () => new Request('http://127.0.0.1:8888/api/submit-waiver'), 405, /POST/],
    [
      'a waiver signed under an older text',
      () => post({ waiver: validWaiver({ waiverVersion: '1999-01' }) }),
      409,
      /reload/i,
    ],
  ];

  test.each(bad)(
    'refuses %s with a clear error, storing and sending nothing',
    async (_, request, status, message) => {
      const response = await submitWaiver(request(), context);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/json');
      const body = await response.json();
      expect(body.success).toBe(false);
      expect(body.error).toMatch(message);
      expect(await count('waivers')).toBe(0);
      expect(await count('waiver_texts')).toBe(0);
      expect(env.smtp.mails).toHaveLength(0);
    },
  );

  test('names every field to fix when several are wrong', async () => {
    const response = await submitWaiver(
      post({ waiver: validWaiver({ firstName: '', phone: '12', agreedToTerms: false }) }),
      context,
    );
    const { error } = await response.json();
    expect(error).toMatch(/first name/);
    expect(error).toMatch(/phone number/);
    expect(error).toMatch(/agree/);
  });

  test("records the platform's client address, never the X-Forwarded-For a client wrote", async () => {
    const request = post({ waiver: validWaiver() });
    request.headers.set('x-forwarded-for', '198.51.100.9, 10.0.0.1');
    await submitWaiver(request, context);
    const { rows } = await env.db.query<{ client_ip: string }>('SELECT client_ip FROM waivers');
    expect(rows[0]!.client_ip).toBe(IP);
  });

  test("falls back to Netlify's client address header when there is no context", async () => {
    const request = post({ waiver: validWaiver() });
    request.headers.set('x-nf-client-connection-ip', '198.51.100.9');
    await submitWaiver(request);
    const { rows } = await env.db.query<{ client_ip: string }>('SELECT client_ip FROM waivers');
    expect(rows[0]!.client_ip).toBe('198.51.100.9');
  });

  test('answers 503 with a clear error when the database is unavailable', async () => {
    await env.whileDown(async () => {
      const response = await submitWaiver(post({ waiver: validWaiver() }), context);
      expect(response.status).toBe(503);
      const body = await response.json();
      expect(body.success).toBe(false);
      expect(body.error).toMatch(/could not save your waiver/);
      expect(env.smtp.mails).toHaveLength(0);
    });
  });

  test('a waiver text missing from the deployment gets a JSON 500 naming nothing of the form, and stores nothing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'no-content-'));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.stubEnv('CONTENT_DIR', empty);
    try {
      const response = await submitWaiver(post({ waiver: validWaiver() }), context);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({
        success: false,
        error: 'We could not save your waiver, so nothing was recorded. Please try again.',
      });
      expect(await env.count('waivers')).toBe(0);
      expect(JSON.stringify(errors.mock.calls)).not.toContain('Okonkwo');
    } finally {
      vi.unstubAllEnvs();
      errors.mockRestore();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe("the participant's copies", () => {
  afterEach(() => {
    setClock(undefined);
    vi.unstubAllEnvs();
  });

  const participantRows = () =>
    env.db.query<{ ref: string; sent_at: Date | null; skipped: string | null }>(
      `SELECT ref, sent_at, skipped FROM mail_outbox WHERE kind = 'waiver-participant' ORDER BY id`,
    );

  test('one address gets WAIVER_COPY_LIMIT a day; past it the waiver is kept, the studio gets its copy, and the copy is recorded as held back', async () => {
    vi.stubEnv('WAIVER_COPY_LIMIT', '2/24h');
    const ids: string[] = [];
    // One mailbox however its address is written.
    for (const email of ['ingrid@example.test', 'INGRID@example.test', 'Ingrid@Example.Test']) {
      const response = await submitWaiver(post({ waiver: validWaiver({ email }) }), context);
      expect(response.status).toBe(200);
      ids.push((await response.json()).id);
    }
    expect(await count('waivers')).toBe(3);
    await env.smtp.waitForMails(5);
    const to = (address: string) =>
      env.smtp.mails.filter((mail) => mail.envelope.to.some((t) => t.toLowerCase() === address));
    expect(to(RECORDS)).toHaveLength(3);
    expect(to('ingrid@example.test')).toHaveLength(2);

    const rows = (await participantRows()).rows;
    expect(rows.map((row) => [row.ref, row.sent_at !== null, row.skipped])).toEqual([
      [ids[0], true, null],
      [ids[1], true, null],
      [ids[2], false, 'recipient-limit'],
    ]);
    // Held back is not owed: the outbox never sends it, and the desk does not count it undelivered.
    await env.db.query('UPDATE mail_outbox SET next_attempt_at = now()');
    expect(await outbox.drain()).toMatchObject({ sent: 0 });
    expect(await undeliveredCount()).toEqual({ owed: 0, failed: 0 });
    const view = await waiverView(ids[2]!);
    expect(view!.mails).toEqual([
      expect.objectContaining({ kind: 'waiver-records', state: 'sent' }),
      expect.objectContaining({ kind: 'waiver-participant', state: 'skipped' }),
    ]);

    // Another address is another count; the next day, this one gets its copies again.
    await submitWaiver(post({ waiver: validWaiver({ email: 'ana@example.test' }) }), context);
    advanceClock(24 * 3_600_000);
    await submitWaiver(post({ waiver: validWaiver() }), context);
    await env.smtp.waitForMails(9);
    expect(to('ana@example.test')).toHaveLength(1);
    expect(to('ingrid@example.test')).toHaveLength(3);
  });

  test('the default is 3 copies a day to one address', async () => {
    for (let i = 0; i < 4; i += 1) {
      await submitWaiver(post({ waiver: validWaiver() }), context);
    }
    await env.smtp.waitForMails(7);
    const skipped = (await participantRows()).rows.filter((row) => row.skipped !== null);
    expect(skipped).toHaveLength(1);
  });
});
