import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import type { Context } from '@netlify/functions';
import submitWaiver from '../../functions/submit-waiver';
import { currentWaiverText, sha256 } from '../../src/server/waiver/current-text';
import { outbox } from '../../src/server/mail-kinds';
import { waiverBlocks } from '../../src/shared/waiver-blocks';
import { useFunctionEnv } from '../fixtures/function-env';
import { noisyPng, signaturePng } from '../fixtures/signatures';
import { pdfText } from '../fixtures/pdf-text';
import { waiverFields } from '../fixtures/submissions';

const RECORDS = 'waiver-records@example.test';
const IP = '203.0.113.7';
const AGENT = 'Mozilla/5.0 (test) WaiverTest/1.0';

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
    const response = await submitWaiver(post({ waiver: validWaiver() }), context);
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
      medical_conditions: expect.stringMatching(/^enc1:/),
      medications: expect.stringMatching(/^enc1:/),
      agreed_to_terms: true,
      agreed_to_photos: true,
      client_ip: IP,
      user_agent: AGENT,
      waiver_text_sha256: text.sha256,
    });
    const png = Buffer.from(SIGNATURE.split(',')[1]!, 'base64');
    expect(Buffer.from(row.signature_png as Uint8Array).equals(png)).toBe(true);
    expect(Date.now() - new Date(row.created_at as string).getTime()).toBeLessThan(60_000);
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

  test('mails the full PDF to the records inbox and a copy without health details to the participant', async () => {
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
    for (const mail of [records, participant]) {
      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0]!.contentType).toBe('application/pdf');
      // Page footers land between the lines of a paragraph that spans two pages.
      const pdf = (await pdfText(mail.attachments[0]!.content)).replace(
        / ?Still Point Pilates - waiver \S+ - page \d+ of \d+ ?/g,
        ' ',
      );
      for (const expected of [
        'Still Point Pilates',
        'Ingrid Okonkwo',
        'ingrid@example.test',
        'Tomas Okonkwo',
        '503-555-0199',
        id,
        IP,
        AGENT,
        text.sha256,
        text.version,
      ]) {
        expect(squash(pdf)).toContain(squash(expected));
      }
      expect(pdf).toMatch(/Signed at \(UTC\): \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
      expect(pdf).toContain('promotional photos: Yes');
      for (const block of blocks) expect(squash(pdf)).toContain(block);
    }

    const full = await pdfText(records.attachments[0]!.content);
    expect(full).toContain('Mild scoliosis');
    expect(full).toContain('Ibuprofen');

    const copy = await pdfText(participant.attachments[0]!.content);
    expect(copy).toContain('On file with the studio');
    expect(copy).not.toContain('scoliosis');
    expect(copy).not.toContain('Ibuprofen');
    for (const part of [participant.text, participant.html, participant.subject]) {
      expect(String(part)).not.toContain('scoliosis');
    }
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
