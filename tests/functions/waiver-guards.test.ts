import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import submitWaiver from '../../functions/submit-waiver';
import { decryptField } from '../../src/server/platform/crypto';
import { loadWaiver } from '../../src/server/waiver/store';
import { pdfText } from '../fixtures/pdf-text';
import { useFunctionEnv } from '../fixtures/function-env';
import { jsonPost, streamOf } from './harness';
import { waiverFields } from '../fixtures/submissions';

const ENDPOINT = 'http://127.0.0.1:8888/api/submit-waiver';
const CAP = 1024 * 1024;
const CONDITIONS = 'Herniated disc L4-L5, asthma';
const MEDICATIONS = 'Salbutamol inhaler';

// A database of this file's own and the SMTP server, both emptied (and the mail server
// accepting again) before each test.
const env = useFunctionEnv();

beforeEach(() => {
  process.env.WAIVER_RECORDS_TO = 'waiver-records@example.test';
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function form(overrides: Record<string, unknown> = {}, waiver: Record<string, unknown> = {}) {
  return {
    waiver: waiverFields({
      medicalConditions: CONDITIONS,
      medications: MEDICATIONS,
      agreedToPhotos: false,
      ...waiver,
    }),
    website: '',
    fillTimeMs: 40_000,
    ...overrides,
  };
}

const post = (body: unknown, headers: Record<string, string> = {}, ip = '203.0.113.7') =>
  submitWaiver(jsonPost(ENDPOINT, body, headers), { ip } as never);

async function rows() {
  const { rows } = await env.db.query<Record<string, unknown>>(
    'SELECT * FROM waivers ORDER BY created_at',
  );
  return rows;
}

async function expectRejected(response: Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  expect(await response.json()).toEqual({ success: false, error: expect.any(String) });
  expect(await rows()).toEqual([]);
  expect(env.smtp.mails).toEqual([]);
}

describe('health data at rest', () => {
  test('the stored row holds no plaintext of the medical conditions or medications', async () => {
    const response = await post(form());
    expect(response.status).toBe(200);
    const [row] = await rows();
    const raw = JSON.stringify(row);
    for (const secret of [CONDITIONS, MEDICATIONS, 'Herniated', 'asthma', 'Salbutamol']) {
      expect(raw).not.toContain(secret);
    }
    const id = String(row.id);
    expect(decryptField(row.medical_conditions as string, 'medicalConditions', id)).toBe(
      CONDITIONS,
    );
    expect(decryptField(row.medications as string, 'medications', id)).toBe(MEDICATIONS);
  });

  test("one participant's health information copied into another's row does not open there", async () => {
    const first = (await (await post(form())).json()) as { id: string };
    const second = (await (
      await post(form({}, { firstName: 'Other', email: 'other@example.test' }))
    ).json()) as { id: string };
    // Someone with write access to the database moves the first waiver's sealed values into the
    // second's row: each is bound to the row it was written for, so the second no longer opens.
    await env.db.query(
      `UPDATE waivers SET medical_conditions = f.medical_conditions, medications = f.medications
         FROM waivers f WHERE f.id = $1 AND waivers.id = $2`,
      [first.id, second.id],
    );
    await expect(loadWaiver(second.id)).rejects.toThrow();
    expect((await loadWaiver(first.id))?.medications).toBe(MEDICATIONS);
  });

  test('is decrypted where the record is read for the PDF, and the PDF still lists it', async () => {
    const { id } = await (await post(form())).json();
    const record = await loadWaiver(id);
    expect(record?.medicalConditions).toBe(CONDITIONS);
    expect(record?.medications).toBe(MEDICATIONS);
    await env.smtp.waitForMails(2);
    const records = env.smtp.mails.find(
      (mail) => mail.envelope.to[0] === 'waiver-records@example.test',
    );
    const text = await pdfText(records!.attachments[0]!.content);
    expect(text.replace(/\s+/g, '')).toContain(CONDITIONS.replace(/\s+/g, ''));
    expect(text.replace(/\s+/g, '')).toContain(MEDICATIONS.replace(/\s+/g, ''));
  });

  test('a waiver stored before health data was encrypted still reads as it was', async () => {
    const { id } = await (await post(form())).json();
    await env.db.query(
      'UPDATE waivers SET medical_conditions = $1, medications = $2 WHERE id = $3',
      [CONDITIONS, '', id],
    );
    const record = await loadWaiver(id);
    expect(record?.medicalConditions).toBe(CONDITIONS);
    expect(record?.medications).toBe('');
  });

  test('a tampered encrypted value is refused, not read', async () => {
    const { id } = await (await post(form())).json();
    const [row] = await rows();
    const parts = (row.medications as string).split(':');
    parts[3] = Buffer.from('Something else').toString('base64url');
    await env.db.query('UPDATE waivers SET medications = $1 WHERE id = $2', [parts.join(':'), id]);
    await expect(loadWaiver(id)).rejects.toThrow();
  });

  test('no log line holds health data or the form, whatever happens to the waiver', async () => {
    const lines: unknown[][] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args) => void lines.push(args));
    }
    await post(form());
    await post(form({ website: 'bot' }));
    await post(form({}, { agreedToTerms: false }));
    env.smtp.setFailing(true);
    await post(form());
    vi.stubEnv('WAIVER_RATE_LIMIT', '1/1h');
    await post(form(), {}, '198.51.100.1');
    await post(form(), {}, '198.51.100.1');
    const logged = JSON.stringify(lines);
    for (const secret of ['Herniated', 'asthma', 'Salbutamol', 'ingrid@example.test', 'Okonkwo']) {
      expect(logged).not.toContain(secret);
    }
  });
});

describe('only the site itself may post', () => {
  test.each([
    ['another site', { origin: 'https://evil.example' }],
    ['an opaque origin', { origin: 'null' }],
  ])('a waiver from %s gets 403, nothing stored or sent', async (_, headers) => {
    await expectRejected(await post(form(), headers), 403);
  });

  test('a waiver with no Origin and no fetch metadata gets 403', async () => {
    const request = jsonPost(ENDPOINT, form());
    request.headers.delete('origin');
    await expectRejected(await submitWaiver(request, { ip: '203.0.113.7' } as never), 403);
  });
});

describe('size and type', () => {
  test('a body declared over 1 MB gets 413 before it is read', async () => {
    let pulled = 0;
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers: {
        origin: 'http://127.0.0.1:8888',
        'content-type': 'application/json',
        'content-length': String(CAP + 1),
      },
      body: streamOf(() => {
        pulled += 1;
        return new Uint8Array(64 * 1024).fill(0x20);
      }),
      duplex: 'half',
    } as RequestInit);
    await expectRejected(await submitWaiver(request), 413);
    expect(pulled).toBeLessThanOrEqual(1);
  });

  test('an endless streamed body with no length stops being read at 1 MB: 413', async () => {
    let sent = 0;
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers: { origin: 'http://127.0.0.1:8888', 'content-type': 'application/json' },
      body: streamOf(() => {
        sent += 64 * 1024;
        return new TextEncoder().encode(sent === 64 * 1024 ? '{"waiver":"' : 'A'.repeat(64 * 1024));
      }),
      duplex: 'half',
    } as RequestInit);
    await expectRejected(await submitWaiver(request), 413);
    expect(sent).toBeLessThan(CAP + 4 * 64 * 1024);
  });

  test('a waiver sent as text/plain gets 415', async () => {
    await expectRejected(await post(form(), { 'content-type': 'text/plain' }), 415);
  });

  test.each([
    ['a first name of 101 characters', { firstName: 'n'.repeat(101) }],
    ['medical conditions of 2001 characters', { medicalConditions: 'm'.repeat(2001) }],
    ['medications of 2001 characters', { medications: 'm'.repeat(2001) }],
  ])('%s gets 422', async (_, change) => {
    const response = await post(form({}, change));
    expect(response.status).toBe(422);
    expect(await rows()).toEqual([]);
  });
});

describe('rate limits per client', () => {
  test('the third waiver in the window from one IP gets 429 with Retry-After; another IP does not', async () => {
    vi.stubEnv('WAIVER_RATE_LIMIT', '2/1h');
    expect((await post(form(), {}, '203.0.113.30')).status).toBe(200);
    expect((await post(form(), {}, '203.0.113.30')).status).toBe(200);
    const limited = await post(form(), {}, '203.0.113.30');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(3_600);
    expect((await limited.json()).error).toMatch(/^Too many waivers .* try again in/);
    expect(await rows()).toHaveLength(2);
    expect((await post(form(), {}, '203.0.113.31')).status).toBe(200);
  });

  test('the waiver and contact limits are counted apart', async () => {
    const { rows: before } = await env.db.query('SELECT * FROM rate_limit_hits');
    expect(before).toEqual([]);
    await post(form(), {}, '203.0.113.40');
    const { rows: after } = await env.db.query<{ bucket: string }>(
      'SELECT bucket FROM rate_limit_hits ORDER BY bucket',
    );
    // The client's waivers, and (apart from both) the copies mailed to the participant's address.
    expect(after.map((row) => row.bucket)).toEqual(['waiver', 'waiver-participant-copy']);
  });
});

describe('spam', () => {
  test.each([
    ['the honeypot is filled in', { website: 'https://spam.example' }, 'honeypot'],
    ['it was sent within 5 seconds', { fillTimeMs: 1_200 }, 'too-fast'],
    ['the time trap is missing', { fillTimeMs: undefined }, 'no-timer'],
  ])(
    'when %s it is answered as sent, stored marked as spam and encrypted, and not mailed',
    async (_, change, reason) => {
      vi.spyOn(console, 'info').mockImplementation(() => undefined);
      const response = await post(form(change));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ success: true, id: expect.any(String) });
      const [row] = await rows();
      expect(row).toMatchObject({ spam_reason: reason });
      expect(JSON.stringify(row)).not.toContain('asthma');
      expect(env.smtp.mails).toEqual([]);
      const { rows: queued } = await env.db.query('SELECT id FROM mail_outbox');
      expect(queued).toEqual([]);
    },
  );
});
