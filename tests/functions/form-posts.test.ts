/**
 * Both forms posted by a browser without JavaScript: a plain HTML form post
 * (`application/x-www-form-urlencoded`) goes through the same guards, checks, spam verdict,
 * idempotency and storage as the script's JSON, and is answered with pages.
 */
import { PNG } from 'pngjs';
import { beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import sendEmail from '../../functions/send-email';
import submitWaiver from '../../functions/submit-waiver';
import { currentWaiverText } from '../../src/server/waiver/current-text';
import { useFunctionEnv } from '../fixtures/function-env';
import { pdfText } from '../fixtures/pdf-text';
import { renderPage } from '../fixtures/on-demand';
import { formPost as harnessFormPost, refusalPage } from './harness';

const STUDIO = 'studio-inbox@example.test';
const RECORDS = 'waiver-records@example.test';
const STUDIO_EMAIL = 'hello@stillpointpilates.studio';

// A database of this file's own and the SMTP server, both emptied (and the mail server
// accepting again) before each test.
const env = useFunctionEnv();

beforeAll(() => {
  process.env.CONTACT_TO = STUDIO;
  process.env.WAIVER_RECORDS_TO = RECORDS;
});

beforeEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** A form post as a browser with scripts off sends it. */
const formPost = (url: string, fields: Record<string, string>) =>
  harnessFormPost(url, fields, { 'user-agent': 'NoScriptBrowser/1.0' });

const message = {
  name: 'Noor Haddad',
  email: 'noor@example.test',
  service: 'consultation',
  message: 'Hello!\r\nI have no JavaScript but would love a consultation.',
  website: '',
};

const sendMessage = (fields: Record<string, string>, ip?: string) =>
  sendEmail(formPost('http://127.0.0.1:8888/api/send-email', fields), { ip: ip ?? '203.0.113.20' });

async function rows(table: string) {
  const { rows } = await env.db.query<Record<string, unknown>>(`SELECT * FROM ${table}`);
  return rows;
}

/**
 * The refusal page a browser without script is sent to (a 303 from the function, followed with
 * a GET): its words come in the address, never a typed value; personal, so never cached or indexed.
 */
async function refusalOf(response: Response, typed: string[] = []): Promise<Response> {
  expect(response.status).toBe(303);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const location = response.headers.get('location')!;
  for (const value of typed) {
    expect(decodeURIComponent(location)).not.toContain(value);
    expect(
      Buffer.from(new URL(location, 'http://x').searchParams.get('words')!, 'base64url').toString(),
    ).not.toContain(value);
  }
  const page = await refusalPage(response);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.headers.get('x-robots-tag')).toMatch(/noindex/);
  return page;
}

describe('the contact form without JavaScript', () => {
  test('a message is stored, answered with a 303 to the page that says it was sent, and mailed', async () => {
    const response = await sendMessage({ ...message, fillTimeMs: '9000' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/contact/sent');
    const [row] = await rows('contact_messages');
    expect(row).toMatchObject({ name: message.name, spam_reason: null, timed: true });
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0]!.subject).toBe('New Inquiry from Noor Haddad');
    expect(env.smtp.mails[0]!.envelope.to).toEqual([STUDIO]);
  });

  test('without the time (no script at all) it is still delivered, marked as not timed', async () => {
    const response = await sendMessage(message);
    expect(response.status).toBe(303);
    const [row] = await rows('contact_messages');
    expect(row).toMatchObject({ spam_reason: null, timed: false });
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails[0]!.text).toContain('Sent from a browser without JavaScript');
  });

  test('a filled-in honeypot is still answered as sent, stored as spam and not mailed', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const response = await sendMessage({ ...message, website: 'https://spam.example' });
    expect(response.status).toBe(303);
    expect((await rows('contact_messages'))[0]).toMatchObject({ spam_reason: 'honeypot' });
    expect(await rows('mail_outbox')).toEqual([]);
  });

  test('sent twice (Back, then Send again) it is stored and mailed once', async () => {
    expect((await sendMessage(message)).status).toBe(303);
    expect((await sendMessage(message)).status).toBe(303);
    expect(await rows('contact_messages')).toHaveLength(1);
    await env.smtp.waitForMails(1);
    expect(env.smtp.mails).toHaveLength(1);
  });

  test("missing and wrong fields get a page in the product's words naming each field, and nothing is stored", async () => {
    const response = await sendMessage({ ...message, name: ' ', email: 'noor-at-example' });
    const page = await refusalOf(response, ['noor-at-example', 'Hello!']);
    expect(page.status).toBe(422);
    const html = await page.text();
    expect(html).toMatch(/<h1 id="problem-title"[^>]*>\s*Error sending message\s*<\/h1>/);
    expect(html).toMatch(/<strong[^>]*>Name:<\/strong> Please enter your name\./);
    expect(html).toMatch(
      /<strong[^>]*>Email:<\/strong> Please enter a valid e-mail address, like name@example\.com\./,
    );
    expect(html).toContain('Please try again or contact me directly at');
    expect(html).toContain(`href="mailto:${STUDIO_EMAIL}"`);
    expect(html).toMatch(/<meta name="robots" content="noindex/);
    expect(html).toContain("browser's Back button");
    expect(html).toContain('href="/contact"');
    expect(await rows('contact_messages')).toEqual([]);
  });

  test('a NUL character in the message gets the page naming the message, and nothing is stored', async () => {
    const response = await sendMessage({ ...message, message: 'Hi\u0000there' });
    const page = await refusalOf(response, ['Hi\u0000there']);
    expect(page.status).toBe(422);
    expect(await page.text()).toContain('Message:</strong> Please remove the control characters');
    expect(await rows('contact_messages')).toEqual([]);
  });

  test("when the database is down the page says so in the product's words, with Retry-After", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await env.whileDown(async () => {
      const page = await refusalOf(await sendMessage(message), [message.name]);
      expect(page.status).toBe(503);
      expect(page.headers.get('retry-after')).toBe('30');
      const html = await page.text();
      expect(html).toContain('Error sending message');
      expect(html).toContain('Your message could not be saved just now. Please try again shortly.');
      expect(html).toContain(`Please try again or contact me directly at`);
    });
  });

  test('over the rate limit the page says when to try again', async () => {
    vi.stubEnv('CONTACT_RATE_LIMIT', '1/1h');
    await sendMessage(message, '203.0.113.77');
    const response = await sendMessage({ ...message, name: 'Again' }, '203.0.113.77');
    const page = await refusalOf(response);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    // The limit's window is an hour of the clock: near its end the wait is said in seconds.
    expect(await page.text()).toMatch(
      /Too many messages have been sent from your connection\. Please try again in \d+ (second|minute|hour)s?\./,
    );
  });

  test('a post from another site gets the refusal page and nothing is stored', async () => {
    const request = formPost('http://127.0.0.1:8888/api/send-email', message);
    request.headers.set('origin', 'https://evil.example');
    const page = await refusalOf(await sendEmail(request));
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('href="/contact"');
    expect(await rows('contact_messages')).toEqual([]);
  });
});

describe('the refusal page', () => {
  test('says only words the site wrote: an address with other words goes to the home page', async () => {
    const refused = await sendMessage({ ...message, email: 'noor-at-example' });
    const location = new URL(refused.headers.get('location')!, 'http://127.0.0.1:8888');
    const words = JSON.parse(
      Buffer.from(location.searchParams.get('words')!, 'base64url').toString(),
    ) as { refusal: { title: string } };
    words.refusal.title = 'Call 555-0100 to finish sending';
    location.searchParams.set('words', Buffer.from(JSON.stringify(words)).toString('base64url'));
    for (const address of [location.href, 'http://127.0.0.1:8888/refused']) {
      const page = await renderPage(new Request(address));
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/');
    }
  });
});

describe('the waiver without JavaScript', () => {
  const waiver = {
    firstName: 'Noor',
    lastName: 'Haddad',
    email: 'noor@example.test',
    phone: '503-555-0123',
    emergencyName: 'Sami Haddad',
    emergencyPhone: '503-555-0188',
    medicalConditions: 'Old ankle sprain',
    medications: '',
    agreedToTerms: 'on',
    signatureName: 'Noor Haddad',
    waiverVersion: currentWaiverText().version,
    website: '',
  };
  const sign = (fields: Record<string, string>) =>
    submitWaiver(formPost('http://127.0.0.1:8888/api/submit-waiver', fields), {
      ip: '203.0.113.30',
    });

  test('signed with a typed name: stored with the image the server drew, filed, both mails sent', async () => {
    const response = await sign(waiver);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/waiver/signed');
    const [row] = await rows('waivers');
    expect(row).toMatchObject({
      first_name: 'Noor',
      agreed_to_terms: true,
      agreed_to_photos: false,
      signature_kind: 'typed-server',
      signature_name: 'Noor Haddad',
      client_ip: '203.0.113.30',
      user_agent: 'NoScriptBrowser/1.0',
      timed: false,
      spam_reason: null,
    });
    const png = PNG.sync.read(Buffer.from(row!.signature_png as Uint8Array));
    expect([png.width, png.height]).toEqual([800, 400]);
    let ink = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! < 128) ink++;
    expect(ink).toBeGreaterThan(2_000);

    await env.smtp.waitForMails(2);
    const records = env.smtp.mails.find((mail) => mail.envelope.to.includes(RECORDS))!;
    const pdf = await pdfText(records.attachments[0]!.content);
    expect(pdf).toContain('Signature: Typed name, drawn by the server');
    expect(pdf).toContain('Name typed to sign: Noor Haddad');
    expect(pdf).toContain('Form timing: Not checked (sent without JavaScript)');
    expect(pdf).toContain('Old ankle sprain');
  });

  test('a Cyrillic or Greek name and health notes reach the PDF as written, and the name is drawn, not boxed', async () => {
    await sign({
      ...waiver,
      firstName: 'Анна',
      lastName: 'Иванова',
      emergencyName: 'Ζωή Παπαδοπούλου',
      medicalConditions: 'Травма колена',
      signatureName: 'Анна Иванова',
    });
    await env.smtp.waitForMails(2);
    const records = env.smtp.mails.find((mail) => mail.envelope.to.includes(RECORDS))!;
    const pdf = await pdfText(records.attachments[0]!.content);
    expect(pdf).toContain('First Name: Анна');
    expect(pdf).toContain('Emergency Contact Name: Ζωή Παπαδοπούλου');
    expect(pdf).toContain('Травма колена');
    expect(pdf).toContain('Name typed to sign: Анна Иванова');
    // A font without these letters draws one identical empty box for each: two names of the same
    // length would then give the same image.
    const first = (await rows('waivers'))[0]!.signature_sha256;
    await env.clear();
    await sign({ ...waiver, email: 'vera@example.test', signatureName: 'Вера Петрова' });
    expect((await rows('waivers'))[0]!.signature_sha256).not.toBe(first);
  });

  test('the same typed name always gives the same signature image', async () => {
    await sign(waiver);
    await env.clear();
    await sign({ ...waiver, email: 'noor.other@example.test' });
    const first = (await rows('waivers'))[0]!.signature_sha256;
    await env.clear();
    await sign({ ...waiver, email: 'noor.third@example.test' });
    expect((await rows('waivers'))[0]!.signature_sha256).toBe(first);
  });

  test('the terms not ticked: the Agreement Required page, nothing stored', async () => {
    const { agreedToTerms: _terms, ...unticked } = waiver;
    const page = await refusalOf(await sign(unticked), ['Old ankle sprain', 'Noor']);
    expect(page.status).toBe(422);
    const html = await page.text();
    expect(html).toContain('Agreement Required');
    expect(html).toContain('Please read and agree to the liability waiver terms.');
    expect(html).toContain('Please try again or contact us directly.');
    expect(await rows('waivers')).toEqual([]);
  });

  test('no signature: the Signature Required page, nothing stored', async () => {
    const page = await refusalOf(await sign({ ...waiver, signatureName: '' }), [
      'Old ankle sprain',
    ]);
    expect(page.status).toBe(422);
    const html = await page.text();
    expect(html).toContain('Signature Required');
    expect(html).toContain('Please provide your electronic signature.');
    expect(await rows('waivers')).toEqual([]);
  });

  test('a wrong field: the Error submitting waiver page naming it', async () => {
    const page = await refusalOf(await sign({ ...waiver, phone: '12', emergencyName: '' }), [
      'Old ankle sprain',
    ]);
    expect(page.status).toBe(422);
    const html = await page.text();
    expect(html).toContain('Error submitting waiver');
    expect(html).toContain('Please fix the fields below.');
    expect(html).toContain('Phone:</strong> Please enter a phone number with at least 7 digits.');
    expect(html).toContain(
      'Emergency Contact Name:</strong> Please enter your emergency contact&#39;s name.',
    );
    expect(await rows('waivers')).toEqual([]);
  });
});
