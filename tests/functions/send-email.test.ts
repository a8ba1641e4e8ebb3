import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import sendEmail, { config } from '../../functions/send-email';
import { useFunctionEnv } from '../fixtures/function-env';
import { jsonPost, startSmtp } from './harness';

const STUDIO = 'studio-inbox@example.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const env = useFunctionEnv();

beforeEach(() => {
  process.env.CONTACT_TO = STUDIO;
});

afterEach(() => {
  vi.restoreAllMocks();
});

// The form also sends its two invisible anti-spam fields: an empty honeypot and the time it was open.
const valid = {
  name: 'Ada Lovelace',
  email: 'ada@example.test',
  service: 'private-session',
  message: 'Hello!\nI would like to start with private sessions.',
  website: '',
  fillTimeMs: 12_000,
};

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return sendEmail(jsonPost('http://127.0.0.1:8888/api/send-email', body, headers));
}

interface Row {
  id: string;
  name: string;
  email: string;
  service: string | null;
  message: string;
  created_at: Date;
  mail_sent_at: Date | null;
  mail_attempts: number;
  mail_last_error: string | null;
}

/** The stored messages, each with the state of its mail as the outbox records it. */
async function rows(): Promise<Row[]> {
  const { rows } = await env.db.query<Row>(
    `SELECT c.*, o.sent_at AS mail_sent_at, coalesce(o.attempts, 0) AS mail_attempts,
            o.last_error AS mail_last_error
       FROM contact_messages c
       LEFT JOIN mail_outbox o ON o.kind = 'contact' AND o.ref = c.id::text
      ORDER BY c.id`,
  );
  return rows;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

test('a repeat of a submission id answers like the first; with another message it gets 409', async () => {
  const submissionId = crypto.randomUUID();
  const first = await post({ ...valid, submissionId });
  expect(first.status).toBe(200);
  const again = await post({ ...valid, submissionId });
  expect(await again.json()).toEqual(await first.json());
  const other = await post({ ...valid, message: 'Something else entirely.', submissionId });
  expect(other.status).toBe(409);
  expect((await other.json()).error).toMatch(/already sent with other details/);
  expect(await env.count('contact_messages')).toBe(1);
});

test('is served at /api/send-email', () => {
  expect(config.path).toBe('/api/send-email');
});

describe('a valid message', () => {
  test('is stored once with the server time and marked as e-mailed', async () => {
    const before = Date.now();
    const response = await post(valid);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, id: expect.stringMatching(UUID) });

    const stored = await rows();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      name: valid.name,
      email: valid.email,
      service: 'private-session',
      message: valid.message,
      mail_attempts: 1,
      mail_last_error: null,
    });
    expect(stored[0].created_at.getTime()).toBeGreaterThanOrEqual(before - 5_000);
    expect(stored[0].mail_sent_at).toBeInstanceOf(Date);
  });

  test('reaches the studio inbox with the exact subject and Reply-To the visitor', async () => {
    await post(valid);
    await env.smtp.waitForMails(1);
    const [mail] = env.smtp.mails;
    expect(mail.envelope.to).toEqual([STUDIO]);
    expect(mail.subject).toBe('New Inquiry from Ada Lovelace');
    expect(mail.replyTo?.value).toEqual([{ address: 'ada@example.test', name: '' }]);
    expect(mail.html).toContain('Private Session');
    expect(mail.html).toMatch(/repl/i);
  });

  test('lists the message with its line breaks as <br> and has a plain-text part', async () => {
    await post({ ...valid, message: 'Line one\nLine two\r\nLine three' });
    await env.smtp.waitForMails(1);
    const [mail] = env.smtp.mails;
    // Line breaks as <br> (React writes the void element as <br/>).
    expect(mail.html).toMatch(/Line one<br\s*\/?>Line two<br\s*\/?>Line three/);
    expect(mail.text).toContain('Name: Ada Lovelace');
    expect(mail.text).toContain('Email: ada@example.test');
    expect(mail.text).toContain('Service Interest: Private Session');
    expect(mail.text).toContain('Line one\nLine two');
  });

  test("says 'Not specified' when no service was chosen", async () => {
    const response = await post({ ...valid, service: '' });
    expect(response.status).toBe(200);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0].html).toContain('Not specified');
    expect(env.smtp.mails[0].text).toContain('Service Interest: Not specified');
    expect((await rows())[0].service).toBeNull();
  });

  test('may leave out the service field altogether', async () => {
    const { service: _service, ...withoutService } = valid;
    expect((await post(withoutService)).status).toBe(200);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0].html).toContain('Not specified');
  });

  test('has every visitor value HTML-escaped', async () => {
    await post({
      ...valid,
      name: '<script>alert(1)</script>',
      email: 'ada@example.test',
      service: '',
      message: 'Hi <img src=x onerror=alert(2)> & "bye"',
    });
    await env.smtp.waitForMails(1);
    const { html } = env.smtp.mails[0];
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Hi &lt;img src=x onerror=alert(2)&gt; &amp; &quot;bye&quot;');
    expect(env.smtp.mails[0].subject).toBe('New Inquiry from <script>alert(1)</script>');
  });

  test('goes to the e-mail in content/site.yaml when CONTACT_TO is not set', async () => {
    delete process.env.CONTACT_TO;
    await post(valid);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0].envelope.to).toEqual(['hello@stillpointpilates.studio']);
  });

  test('is written to the local outbox as an .eml file when SMTP_URL is not set', async () => {
    const outbox = await mkdtemp(join(tmpdir(), 'outbox-'));
    delete process.env.SMTP_URL;
    process.env.MAIL_OUTBOX_DIR = outbox;
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      expect((await post(valid)).status).toBe(200);
      const files = await readdir(outbox);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      expect(await readFile(join(outbox, files[0]), 'utf8')).toContain(
        'Subject: New Inquiry from Ada Lovelace',
      );
      expect((await rows())[0].mail_sent_at).toBeInstanceOf(Date);
    } finally {
      delete process.env.MAIL_OUTBOX_DIR;
      await rm(outbox, { recursive: true, force: true });
    }
  });
});

describe('bad input', () => {
  const invalid: [string, unknown, string][] = [
    ['a missing name', { ...valid, name: undefined }, 'name'],
    ['a blank name', { ...valid, name: '   ' }, 'name'],
    ['a missing e-mail', { ...valid, email: undefined }, 'email'],
    ['a malformed e-mail', { ...valid, email: 'ada-at-example' }, 'email'],
    ['a missing message', { ...valid, message: undefined }, 'message'],
    ['an unknown service', { ...valid, service: 'trapeze' }, 'service'],
    ['an overlong message', { ...valid, message: 'x'.repeat(5001) }, 'message'],
    ['a name that is not text', { ...valid, name: 42 }, 'name'],
  ];

  test.each(invalid)(
    '%s gets 422 with the field error, no row and no mail',
    async (_, body, field) => {
      const response = await post(body);
      expect(response.status).toBe(422);
      const answer = await response.json();
      expect(answer).toMatchObject({ success: false, error: expect.any(String) });
      expect(answer.fieldErrors[field]).toEqual(expect.any(String));
      expect(await rows()).toEqual([]);
      expect(env.smtp.mails).toEqual([]);
    },
  );

  test('names every missing required field at once, in words for people', async () => {
    const answer = await (await post({})).json();
    expect(answer.fieldErrors).toEqual({
      name: 'Please enter your name.',
      email: 'Please enter your e-mail address.',
      message: 'Please enter your message.',
    });
    expect(answer.error).toBe(
      'Please enter your name. Please enter your e-mail address. Please enter your message.',
    );
  });

  const malformed: [string, number, () => Promise<Response>][] = [
    ['a body that is not JSON', 400, () => post('{"name": "Ada",')],
    ['a JSON array', 400, () => post([valid])],
    ['JSON null', 400, () => post('null')],
    [
      'a body without a content type',
      415,
      () => post(JSON.stringify(valid), { 'content-type': '' }),
    ],
  ];

  test.each(malformed)('%s gets %i JSON, no row and no mail', async (_, status, send) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toMatchObject({ success: false, error: expect.any(String) });
    expect(await rows()).toEqual([]);
    expect(env.smtp.mails).toEqual([]);
  });

  test.each(['GET', 'PUT', 'DELETE'])('%s gets 405 JSON with Allow: POST', async (method) => {
    const response = await sendEmail(
      new Request('http://127.0.0.1:8888/api/send-email', { method }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ success: false });
    expect(await rows()).toEqual([]);
    expect(env.smtp.mails).toEqual([]);
  });
});

describe('a client that tries to pick the mail', () => {
  test('cannot choose the recipient, subject or HTML: the injected address receives nothing', async () => {
    const response = await post({
      ...valid,
      to: 'victim@example.test',
      cc: 'victim@example.test',
      subject: 'You won a prize',
      html: '<a href="https://evil.example">claim</a>',
    });
    expect(response.status).toBe(200);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails).toHaveLength(1);
    const [mail] = env.smtp.mails;
    expect(mail.envelope.to).toEqual([STUDIO]);
    expect(mail.subject).toBe('New Inquiry from Ada Lovelace');
    expect(mail.html).not.toContain('evil.example');
    expect(mail.headers.has('cc')).toBe(false);
  });

  test('cannot add a header with CR/LF in the name: 422 naming the name, nothing stored or sent', async () => {
    const response = await post({
      ...valid,
      name: 'Eve\r\nBcc: victim@example.test\r\nX-Injected: yes',
    });
    expect(response.status).toBe(422);
    expect((await response.json()).fieldErrors).toEqual({
      name: 'Please write your name on one line.',
    });
    expect(await rows()).toEqual([]);
    expect(env.smtp.mails).toEqual([]);
  });

  test('a name that looks like a MIME encoded word reaches the subject as the words typed', async () => {
    const name = '=?utf-8?Q?Mallory_=E2=9C=93?= =?utf-8?B?8J+Slg==?=';
    expect((await post({ ...valid, name })).status).toBe(200);
    await env.smtp.waitForMails(1);
    const [mail] = env.smtp.mails;
    expect(mail.subject?.replaceAll('\u200B', '')).toBe(`New Inquiry from ${name}`);
    expect(mail.subject).not.toContain('Mallory ✓');
  });
});

describe('characters Postgres or a mail client would choke on', () => {
  test.each([
    ['name', 'Ada\u0000Lovelace'],
    ['message', 'Hello\u0000there'],
    ['name', 'Ada\u0007'],
  ])(
    'a control character in the %s gets 422 naming it, and nothing is stored',
    async (field, value) => {
      const response = await post({ ...valid, [field]: value });
      expect(response.status).toBe(422);
      const answer = await response.json();
      expect(Object.keys(answer.fieldErrors)).toEqual([field]);
      expect(answer.fieldErrors[field]).toMatch(/control characters/);
      expect(await rows()).toEqual([]);
    },
  );
});

describe('deployed without its mail settings', () => {
  test('the message is stored and answered, its mail stays owed, and the log names the setting once', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args) => void lines.push(args.join(' ')));
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'send-email');
    vi.stubEnv('SMTP_URL', '');
    try {
      expect((await post(valid)).status).toBe(200);
      expect((await post({ ...valid, name: 'Second Visitor' })).status).toBe(200);
    } finally {
      vi.unstubAllEnvs();
    }
    const rows = await env.db.query<{ sent_at: Date | null; last_error: string }>(
      'SELECT sent_at, last_error FROM mail_outbox',
    );
    expect(rows.rows).toEqual([
      { sent_at: null, last_error: 'SMTP_URL not set' },
      { sent_at: null, last_error: 'SMTP_URL not set' },
    ]);
    const configuration = lines.filter((line) => line.startsWith('Configuration:'));
    expect(configuration).toEqual([
      "Configuration: SMTP_URL is not set: mail stays queued in mail_outbox. Set it in the site's environment variables.",
    ]);
    expect(lines.join('\n')).not.toMatch(/ENOENT/);
  });
});

describe('when a backing service is down', () => {
  test('answers 503 JSON and sends nothing when the database is unavailable', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await env.whileDown(async () => {
      const response = await post(valid);
      expect(response.status).toBe(503);
      const answer = await response.json();
      expect(answer).toEqual({ success: false, error: expect.stringMatching(/try again/i) });
      expect(JSON.stringify(answer)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at /);
    });
    expect(env.smtp.mails).toEqual([]);
    expect(await env.count('contact_messages')).toBe(0);
    expect((await post(valid)).status).toBe(200);
  });

  test('keeps the message, marked unsent, when the mail server refuses it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    env.smtp.setFailing(true);
    const response = await post({ ...valid, message: 'A secret about my knee' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, id: expect.stringMatching(UUID) });

    const [row] = await rows();
    expect(row.message).toBe('A secret about my knee');
    expect(row.mail_sent_at).toBeNull();
    expect(row.mail_attempts).toBe(1);
    expect(row.mail_last_error).toMatch(/451/);
    expect(env.smtp.mails).toEqual([]);

    const logged = JSON.stringify(errors.mock.calls);
    expect(logged).toContain(`contact ${row.id}`);
    expect(logged).not.toContain('knee');
    expect(logged).not.toContain(valid.email);
  });

  test('keeps the message, marked unsent, when the mail server cannot be reached', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    process.env.SMTP_URL = `smtp://127.0.0.1:${await closedPort()}`;
    expect((await post(valid)).status).toBe(200);
    const [row] = await rows();
    expect(row.mail_sent_at).toBeNull();
    expect(row.mail_last_error).toMatch(/^E[A-Z]+/);
  });
});

describe('the connection to the mail server', () => {
  test('goes over TLS: every mail of these tests arrives through STARTTLS', async () => {
    expect((await post(valid)).status).toBe(200);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails.map((mail) => mail.secure)).toEqual([true]);
  });

  test('an smtp:// server that offers no STARTTLS gets no mail (it stays owed) unless SMTP_ALLOW_PLAINTEXT says so', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const plain = await startSmtp(0, { starttls: false });
    try {
      vi.stubEnv('SMTP_URL', plain.url);
      expect(plain.url).toMatch(/^smtp:\/\//);
      expect((await post(valid)).status).toBe(200);
      const [row] = await rows();
      expect(row!.mail_sent_at).toBeNull();
      expect(row!.mail_last_error).toBeTruthy();
      expect(plain.mails).toEqual([]);

      vi.stubEnv('SMTP_ALLOW_PLAINTEXT', 'true');
      expect((await post({ ...valid, name: 'Grace Hopper' })).status).toBe(200);
      await plain.waitForMails(1);
      expect(plain.mails.map((mail) => [mail.subject, mail.secure])).toEqual([
        ['New Inquiry from Grace Hopper', false],
      ]);
    } finally {
      vi.unstubAllEnvs();
      await plain.stop();
    }
  });
});
