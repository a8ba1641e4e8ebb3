import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { CONSENTS, WAIVER_FIELDS, WAIVER_FIELD_NAMES } from '../../src/shared/waiver';
import { parseCsv } from '../fixtures/csv';
import { signaturePng } from '../fixtures/signatures';
import { useFunctionEnv } from '../fixtures/function-env';
import { desk, sendMessage, signIn, signWaiver, STAFF } from './desk';

const env = useFunctionEnv();
let cookie: string;

beforeEach(async () => {
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('CONTACT_TO', 'studio-inbox@example.test');
  vi.stubEnv('WAIVER_RECORDS_TO', 'records@example.test');
  vi.stubEnv('CONTACT_RATE_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_RATE_LIMIT', '1000/1m');
  cookie = await signIn(env.smtp);
  env.smtp.mails.length = 0;
});

afterEach(async () => {
  vi.unstubAllEnvs();
});

const get = (path: string) => desk(path, { cookie });
const post = (path: string, body: object = {}) => desk(path, { body, cookie });
const json = async <T = Record<string, unknown>>(response: Response) => {
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T & { success: true };
};
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

async function log() {
  const { rows } = await env.db.query<{
    actor: string;
    action: string;
    record_kind: string | null;
    record_id: string | null;
    detail: Record<string, unknown>;
  }>('SELECT actor, action, record_kind, record_id, detail FROM records_access_log ORDER BY id');
  return rows;
}

describe('waivers', () => {
  test('are found by part of a name, e-mail or phone in any case, newest first', async () => {
    const first = await signWaiver({ lastName: 'Vasquez-Lindholm', email: 'ana@example.test' });
    const second = await signWaiver({
      firstName: 'Bea',
      lastName: 'Okafor',
      phone: '503.555.0177',
    });
    const find = async (q: string) =>
      (
        await json<{ items: { id: string }[] }>(
          await get(`/api/records/waivers?q=${encodeURIComponent(q)}`),
        )
      ).items.map((row) => row.id);

    expect(await find('lindh')).toEqual([first]);
    expect(await find('LINDHOLM')).toEqual([first]);
    expect(await find('ANA@EXAMPLE')).toEqual([first]);
    expect(await find('bea okaf')).toEqual([second]);
    expect(await find('5550177')).toEqual([second]);
    expect(await find('503 555 0177')).toEqual([second]);
    expect(await find('(503) 555-0177')).toEqual([second]);
    expect(await find('+1 503 555 0177')).toEqual([second]);
    expect(await find('555-0142')).toEqual([first]);
    expect(await find('')).toEqual([second, first]);
    // Health information is sealed: it is never searched.
    expect(await find('scoliosis')).toEqual([]);
    // A search text is text, not a pattern.
    expect(await find('%')).toEqual([]);
  });

  test('are filtered by day in the browser time zone and paged by keyset, 20 at a time', async () => {
    const id = await signWaiver();
    // 24 more, one a day back in time (copies of the first with their own ids).
    await env.db.query(
      `INSERT INTO waivers (id, first_name, last_name, email, phone, emergency_name, emergency_phone,
         medical_conditions, medications, agreed_to_terms, agreed_to_photos, signature_png,
         signature_sha256, waiver_text_sha256, created_at, client_ip, user_agent)
       SELECT gen_random_uuid(), first_name, 'Day' || n, email, phone, emergency_name,
         emergency_phone, medical_conditions, medications, agreed_to_terms, agreed_to_photos,
         signature_png, signature_sha256, waiver_text_sha256,
         timestamptz '2026-03-20 12:00:00+00' - make_interval(days => n), client_ip, user_agent
         FROM waivers, generate_series(1, 24) AS n WHERE id = $1`,
      [id],
    );
    const first = await json<{ items: { lastName: string }[]; next: string }>(
      await get('/api/records/waivers'),
    );
    expect(first.items).toHaveLength(20);
    expect(first.items[0]!.lastName).toBe('Okonkwo');
    expect(first.items[1]!.lastName).toBe('Day1');
    const rest = await json<{ items: { lastName: string }[]; next: string | null }>(
      await get(`/api/records/waivers?after=${first.next}`),
    );
    expect(rest.items.map((row) => row.lastName)).toEqual([
      'Day20',
      'Day21',
      'Day22',
      'Day23',
      'Day24',
    ]);
    expect(rest.next).toBeNull();

    // 2026-03-10 12:00 UTC is the 10th in New York and in Tokyo (21:00); the 11th 12:00 UTC too.
    const range = async (query: string) =>
      (
        await json<{ items: { lastName: string }[] }>(await get(`/api/records/waivers?${query}`))
      ).items.map((row) => row.lastName);
    expect(await range('from=2026-03-10&to=2026-03-11&tz=UTC')).toEqual(['Day9', 'Day10']);
    expect(await range('from=2026-03-10&to=2026-03-10&tz=America/New_York')).toEqual(['Day10']);
    // Kiritimati is UTC+14: 12:00 UTC on the 9th is 02:00 on the 10th there.
    expect(await range('from=2026-03-10&to=2026-03-10&tz=Pacific/Kiritimati')).toEqual(['Day11']);

    const bad = await get('/api/records/waivers?from=2026-02-30&to=yesterday');
    expect(bad.status).toBe(422);
    expect(Object.keys((await bad.json()).fieldErrors)).toEqual(['from', 'to']);
  });

  test('one opens with every field, health decrypted, the consents, signature, audit trail and spam flag; the view is logged', async () => {
    const signature = signaturePng(300, 150);
    const id = await signWaiver({ signature, agreedToPhotos: false });
    const spamId = await signWaiver({ lastName: 'Botley' }, true);
    const { waiver } = await json<{
      waiver: Record<string, unknown> & {
        fields: { name: string; label: string; value: string; health: boolean }[];
      };
    }>(await get(`/api/records/waivers/${id}`));
    expect(waiver.fields.map((field) => field.name)).toEqual(WAIVER_FIELD_NAMES);
    expect(waiver.fields.map((field) => field.label)).toEqual(
      WAIVER_FIELD_NAMES.map((name) => WAIVER_FIELDS[name].label),
    );
    expect(waiver.fields.find((field) => field.name === 'medicalConditions')).toMatchObject({
      value: 'Mild scoliosis, left knee surgery in 2021',
      health: true,
    });
    expect(waiver.fields.find((field) => field.name === 'medications')!.value).toBe(
      'Ibuprofen as needed',
    );
    expect(waiver.consents).toEqual([
      { name: 'agreedToTerms', label: CONSENTS.agreedToTerms, value: true },
      { name: 'agreedToPhotos', label: CONSENTS.agreedToPhotos, value: false },
    ]);
    expect(waiver.signature).toBe(signature);
    expect(waiver.audit).toMatchObject({
      clientIp: '203.0.113.9',
      userAgent: 'DeskTest/1.0',
      textVersion: expect.any(String),
      textSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      signature: 'Drawn on the signature pad',
      signatureName: null,
      timed: true,
    });
    expect(waiver.spamReason).toBeNull();
    expect(waiver.mails).toEqual([
      expect.objectContaining({ kind: 'waiver-records', state: 'sent' }),
      expect.objectContaining({ kind: 'waiver-participant', state: 'sent' }),
    ]);

    const spam = await json<{ waiver: { spamReason: string; mails: unknown[]; pdf: unknown } }>(
      await get(`/api/records/waivers/${spamId}`),
    );
    expect(spam.waiver.spamReason).toBe('honeypot');
    expect(spam.waiver.mails).toEqual([]);
    expect(spam.waiver.pdf).toBeNull();

    expect(await log()).toEqual([
      expect.objectContaining({ action: 'sign-in', actor: STAFF }),
      { actor: STAFF, action: 'view-waiver', record_kind: 'waiver', record_id: id, detail: {} },
      { actor: STAFF, action: 'view-waiver', record_kind: 'waiver', record_id: spamId, detail: {} },
    ]);
    expect((await get('/api/records/waivers/0b6f5f0e-3c1e-4f5e-9a3b-2d7c8e9f0a1b')).status).toBe(
      404,
    );
    expect((await get('/api/records/waivers/nope')).status).toBe(404);
  });
});

describe('the signed PDF', () => {
  test('the download is the very file mailed at signing: same SHA-256 as recorded and as mailed', async () => {
    const id = await signWaiver();
    await env.smtp.waitForMails(2);
    const mailed = env.smtp.mails.find((mail) =>
      mail.envelope.to.includes('records@example.test'),
    )!;
    const attachment = mailed.attachments[0]!;
    const { rows } = await env.db.query<{ sha256: string; sealed: Uint8Array }>(
      'SELECT sha256, sealed FROM waiver_pdfs WHERE waiver_id = $1',
      [id],
    );
    const recorded = rows[0]!.sha256;
    expect(sha256(attachment.content)).toBe(recorded);
    // Stored sealed: the health information is not in the database in clear.
    expect(Buffer.from(rows[0]!.sealed).includes('%PDF')).toBe(false);

    const response = await get(`/api/records/waivers/${id}/pdf`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="${attachment.filename}"`,
    );
    const downloaded = new Uint8Array(await response.arrayBuffer());
    expect(sha256(downloaded)).toBe(recorded);

    const { waiver } = await json<{ waiver: { pdf: { sha256: string } } }>(
      await get(`/api/records/waivers/${id}`),
    );
    expect(waiver.pdf.sha256).toBe(recorded);
    expect((await log()).filter((line) => line.action === 'download-pdf')).toEqual([
      {
        actor: STAFF,
        action: 'download-pdf',
        record_kind: 'waiver',
        record_id: id,
        detail: { sha256: recorded },
      },
    ]);
  });

  test('a waiver never mailed (spam) gets its PDF made and recorded at the first download, the same bytes after', async () => {
    const id = await signWaiver({}, true);
    const first = new Uint8Array(await (await get(`/api/records/waivers/${id}/pdf`)).arrayBuffer());
    const second = new Uint8Array(
      await (await get(`/api/records/waivers/${id}/pdf`)).arrayBuffer(),
    );
    expect(Buffer.from(first).subarray(0, 5).toString()).toBe('%PDF-');
    expect(sha256(second)).toBe(sha256(first));
    const { rows } = await env.db.query<{ sha256: string }>('SELECT sha256 FROM waiver_pdfs');
    expect(rows).toEqual([{ sha256: sha256(first) }]);
  });
});

/** A CSV answer's rows, after checking it starts with the UTF-8 byte-order mark. */
async function csvRows(response: Response): Promise<string[][]> {
  const bytes = Buffer.from(await response.arrayBuffer());
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return parseCsv(bytes.subarray(3).toString('utf8'));
}

describe('exports', () => {
  test('the waivers CSV: BOM, CRLF, RFC 4180 quoting, formulas neutralised, columns from WAIVER_FIELDS, health only when chosen', async () => {
    await signWaiver({
      firstName: '=HYPERLINK("https://evil.example","Click")',
      lastName: 'Zoë, "the" Brave',
      phone: '+1 (503) 555-0142',
      emergencyName: '@SUM(1+1)',
      medicalConditions: 'Line one\nline two, with a comma',
    });
    await env.db.query(`UPDATE waivers SET created_at = '2026-11-22 12:00:00+00'`);
    const plain = await get('/api/records/export/waivers?tz=America/Los_Angeles');
    expect(plain.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(plain.headers.get('content-disposition')).toMatch(
      /^attachment; filename="waivers-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const bytes = Buffer.from(await plain.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8').slice(1);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/);
    const [header, row] = parseCsv(text);
    // The columns as a spreadsheet shows them, in order (no health columns unless asked for).
    expect(header!.join(' | ')).toBe(
      'Record ID | Signed at (UTC) | First Name | Last Name | Email | Phone | Emergency Contact Name | Emergency Contact Phone | Agreed to the liability waiver terms | Consents to promotional photos | Waiver text version | Waiver text SHA-256 | Records PDF SHA-256 | IP address | User agent | Spam',
    );
    const cell = (name: string) => row![header!.indexOf(name)];
    expect(cell('First Name')).toBe(`'=HYPERLINK("https://evil.example","Click")`);
    expect(cell('Last Name')).toBe('Zoë, "the" Brave');
    expect(cell('Phone')).toBe("'+1 (503) 555-0142");
    expect(cell('Emergency Contact Name')).toBe("'@SUM(1+1)");
    expect(cell('Signed at (UTC)')).toBe('2026-11-22 12:00:00');
    expect(text).not.toContain('Line one');

    const withHealth = await csvRows(await get('/api/records/export/waivers?health=yes'));
    expect(withHealth[0]).toContain('Medical Conditions or Injuries');
    expect(withHealth[1]![withHealth[0]!.indexOf('Medical Conditions or Injuries')]).toBe(
      'Line one\nline two, with a comma',
    );
    const exports = (await log()).filter((line) => line.action === 'export-waivers');
    expect(exports.map((line) => line.detail)).toEqual([
      { rows: 1, from: null, to: null, health: false },
      { rows: 1, from: null, to: null, health: true },
    ]);
  });

  test('the messages CSV: every message of the range, its line breaks kept, spam marked', async () => {
    await sendMessage({
      name: '-Grace',
      service: 'small-group',
      message: 'Hello,\r\n"is there room"?',
    });
    await sendMessage({ name: 'Bot', service: 'small-group' }, true);
    const response = await get('/api/records/export/messages?from=2000-01-01&to=2100-01-01');
    expect(response.headers.get('content-disposition')).toMatch(/filename="messages-[\d-]+\.csv"/);
    const [header, ...rows] = await csvRows(response);
    expect(header).toEqual([
      'Message ID',
      'Received at (UTC)',
      'Name',
      'Email',
      'Service Interest',
      'Message',
      'Spam',
      'E-mail to the studio',
    ]);
    expect(rows.map((row) => [row[2], row[4], row[5], row[6]])).toEqual([
      ["'-Grace", 'Small Group Class', 'Hello,\r\n"is there room"?', ''],
      ['Bot', 'Small Group Class', 'May I try a reformer class?', 'honeypot'],
    ]);
    const empty = await csvRows(await get('/api/records/export/messages?to=2001-01-01'));
    expect(empty).toHaveLength(1);
  });
});

describe('messages', () => {
  test('are listed and searched, spam marked with its reason', async () => {
    await sendMessage({ name: 'Ada Lovelace', message: 'About the reformer class' });
    await sendMessage({ name: 'Spammy', message: 'Cheap watches' }, true);
    const list = async (query: string) =>
      (
        await json<{ items: { name: string; spamReason: string | null; mail: string | null }[] }>(
          await get(`/api/records/messages?${query}`),
        )
      ).items;
    expect((await list('')).map((m) => [m.name, m.spamReason, m.mail])).toEqual([
      ['Spammy', 'honeypot', null],
      ['Ada Lovelace', null, 'sent'],
    ]);
    expect((await list('show=spam')).map((m) => m.name)).toEqual(['Spammy']);
    expect((await list('show=inbox')).map((m) => m.name)).toEqual(['Ada Lovelace']);
    expect((await list('q=REFORMER')).map((m) => m.name)).toEqual(['Ada Lovelace']);
    expect((await list('q=ada@')).map((m) => m.name)).toEqual(['Spammy', 'Ada Lovelace']);
    // A phone number in the text is found however it is typed.
    await sendMessage({ name: 'Cal Me', message: 'Please call me on (503) 555-0142 after six.' });
    for (const typed of ['5035550142', '503 555 0142', '555-0142', '+1 503 555 0142']) {
      expect(
        (await list(`q=${encodeURIComponent(typed)}`)).map((m) => m.name),
        typed,
      ).toEqual(['Cal Me']);
    }
  });

  test('"not spam" moves a message to the inbox and mails it to the studio once, however often pressed', async () => {
    await sendMessage({ name: 'Real Person', message: 'I am not a bot' }, true);
    expect(env.smtp.mails).toHaveLength(0);
    const { rows } = await env.db.query<{ id: string }>('SELECT id FROM contact_messages');
    const id = String(rows[0]!.id);

    const first = await json(await post(`/api/records/messages/${id}/not-spam`));
    expect(first).toEqual({ success: true, id, queued: true, sent: true });
    const presses = await Promise.all([
      post(`/api/records/messages/${id}/not-spam`),
      post(`/api/records/messages/${id}/not-spam`),
    ]);
    for (const press of presses) {
      expect(await json(press)).toEqual({ success: true, id, queued: false, sent: false });
    }
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails.map((mail) => mail.subject)).toEqual(['New Inquiry from Real Person']);
    const message = await env.db.query('SELECT spam_reason FROM contact_messages');
    expect(message.rows).toEqual([{ spam_reason: null }]);
    expect((await log()).filter((line) => line.action === 'not-spam')).toEqual([
      {
        actor: STAFF,
        action: 'not-spam',
        record_kind: 'message',
        record_id: id,
        detail: { was: 'honeypot', queued: true },
      },
    ]);
    expect((await post('/api/records/messages/999999/not-spam')).status).toBe(404);
  });
});

describe('delivery', () => {
  test('lists mail owed and failed with its error; "send again" sends a failed one once', async () => {
    vi.stubEnv('OUTBOX_MAX_ATTEMPTS', '2');
    env.smtp.setFailing(true);
    await sendMessage({ name: 'Outage Olga' });
    const listed = async () =>
      json<{
        items: {
          id: string;
          state: string;
          attempts: number;
          lastError: string;
          about: unknown;
          label: string;
        }[];
        undelivered: { owed: number; failed: number };
      }>(await get('/api/records/delivery'));

    let delivery = await listed();
    expect(delivery.undelivered).toEqual({ owed: 1, failed: 0 });
    const [owed] = delivery.items;
    expect(owed).toMatchObject({
      state: 'owed',
      attempts: 1,
      lastError: expect.stringContaining('451'),
      label: 'Message to the studio',
      about: { kind: 'message', name: 'Outage Olga' },
    });
    const session = await json<{ undelivered: unknown }>(await get('/api/records/session'));
    expect(session.undelivered).toEqual({ owed: 1, failed: 0 });
    expect((await post(`/api/records/delivery/${owed!.id}/send-again`)).status).toBe(409);

    // The second attempt fails too: given up on.
    await env.db.query(`UPDATE mail_outbox SET next_attempt_at = now()`);
    const { outbox } = await import('../../src/server/mail-kinds');
    await outbox.drain();
    delivery = await listed();
    expect(delivery.undelivered).toEqual({ owed: 0, failed: 1 });
    expect(delivery.items[0]).toMatchObject({ id: owed!.id, state: 'failed', attempts: 2 });

    env.smtp.setFailing(false);
    expect(await json(await post(`/api/records/delivery/${owed!.id}/send-again`))).toEqual({
      success: true,
      id: owed!.id,
      sent: true,
    });
    expect((await post(`/api/records/delivery/${owed!.id}/send-again`)).status).toBe(409);
    await env.smtp.waitForMails(1);
    await outbox.drain();
    expect(env.smtp.mails.map((mail) => mail.subject)).toEqual(['New Inquiry from Outage Olga']);
    expect((await listed()).items).toEqual([]);
    expect((await log()).filter((line) => line.action === 'send-again')).toEqual([
      {
        actor: STAFF,
        action: 'send-again',
        record_kind: 'mail',
        record_id: owed!.id,
        detail: { sent: true },
      },
    ]);
  });
});

describe('erasure', () => {
  test('deletes every waiver, PDF, message and mail of one address in one go; the log keeps counts and ids only', async () => {
    const waiver = await signWaiver({ email: 'Ingrid@Example.test' });
    const spamWaiver = await signWaiver({}, true);
    await get(`/api/records/waivers/${spamWaiver}/pdf`);
    await sendMessage({ name: 'Ingrid Okonkwo', email: 'ingrid@example.test' });
    const kept = await signWaiver({
      firstName: 'Other',
      lastName: 'Person',
      emergencyName: 'Someone Else',
      email: 'other@example.test',
    });
    await sendMessage({ name: 'Other Person', email: 'other@example.test' });

    const preview = await json<{
      preview: { waivers: unknown[]; messages: unknown[]; mails: number };
    }>(await post('/api/records/erasure/preview', { email: 'INGRID@example.test' }));
    expect(preview.preview.waivers).toHaveLength(2);
    expect(preview.preview.messages).toHaveLength(1);
    expect(preview.preview.mails).toBe(3);

    const wrong = await post('/api/records/erasure', {
      email: 'ingrid@example.test',
      confirm: 'ingrid@example.tes',
    });
    expect(wrong.status).toBe(422);
    expect((await wrong.json()).fieldErrors.confirm).toMatch(/again, exactly/);

    const erased = await json<{ erased: unknown }>(
      await post('/api/records/erasure', {
        email: 'ingrid@example.test',
        confirm: ' INGRID@EXAMPLE.TEST ',
      }),
    );
    expect(erased.erased).toEqual({
      waivers: 2,
      messages: 1,
      bookings: 0,
      subscriptions: 0,
      mails: 3,
      pdfs: 2,
    });

    const everything = async (sql: string, params: unknown[] = []) =>
      (await env.db.query(sql, params)).rows;
    const dump = JSON.stringify([
      await everything('SELECT * FROM waivers'),
      await everything('SELECT * FROM contact_messages'),
      await everything('SELECT * FROM mail_outbox'),
      await everything('SELECT * FROM waiver_pdfs'),
      await everything('SELECT * FROM records_access_log'),
    ]);
    expect(dump).not.toMatch(/ingrid|okonkwo|scoliosis/i);
    expect(await everything('SELECT id FROM waivers')).toEqual([{ id: kept }]);
    expect(await everything('SELECT name FROM contact_messages')).toEqual([
      { name: 'Other Person' },
    ]);
    expect(await everything('SELECT ref FROM mail_outbox WHERE ref = $1', [kept])).toHaveLength(2);

    const line = (await log()).find((entry) => entry.action === 'erase')!;
    expect(line).toMatchObject({
      actor: STAFF,
      detail: { waivers: 2, messages: 1, mails: 3, pdfs: 2 },
    });
    expect((line.detail.waiverIds as string[]).sort()).toEqual([waiver, spamWaiver].sort());
    expect(JSON.stringify(line)).not.toMatch(/ingrid|okonkwo/i);
    expect((await get(`/api/records/waivers/${waiver}`)).status).toBe(404);
  });
});

describe('the access log', () => {
  test('lists who did what to which record, newest first, 50 to a page, ties kept in order', async () => {
    const id = await signWaiver();
    await get(`/api/records/waivers/${id}`);
    // 54 more in one statement: one timestamp for all, so paging must not lose any in the tie.
    await env.db.query(
      `INSERT INTO records_access_log (actor, action, record_kind, record_id)
       SELECT $1, 'view-waiver', 'waiver', $2 FROM generate_series(1, 54)`,
      [STAFF, id],
    );
    const first = await json<{
      items: { action: string; actor: string; recordId: string }[];
      next: string;
    }>(await get('/api/records/log'));
    expect(first.items).toHaveLength(50);
    expect(first.items[0]).toMatchObject({ action: 'view-waiver', actor: STAFF, recordId: id });
    const rest = await json<{ items: { action: string }[]; next: string | null }>(
      await get(`/api/records/log?after=${first.next}`),
    );
    expect(rest.items.map((item) => item.action)).toEqual([
      'view-waiver',
      'view-waiver',
      'view-waiver',
      'view-waiver',
      'view-waiver',
      'sign-in',
    ]);
    expect(rest.next).toBeNull();
  });
});
