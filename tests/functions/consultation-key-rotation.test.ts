/**
 * A booking's manage link across a change of the site's key, on a real PostgreSQL server and a
 * real SMTP server, the clock set by the test: the token is random, stored hashed and sealed, so
 * a mail composed after `npm run rotate-key` (run as it is run by hand, in a process of its own)
 * carries the link the visitor was first sent, and it opens the booking with the new key alone.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import bookConsultation from '../../functions/book-consultation';
import retryMail from '../../functions/retry-mail';
import { loadBooking, manageToken } from '../../src/server/booking/store';
import { setClock } from '../../src/server/platform/clock';
import { decryptField, keyedTokens, keyId } from '../../src/server/platform/crypto';
import { useFunctionEnv } from '../fixtures/function-env';
import { renderPage } from '../fixtures/on-demand';
import type { ReceivedMail } from '../fixtures/smtp';
import { bookingBody } from '../fixtures/submissions';
import { desk, signIn, STAFF } from './desk';
import { formPost, jsonPost } from './harness';

const env = useFunctionEnv();
const ROOT = resolve(import.meta.dirname, '../..');
const SITE = 'http://127.0.0.1:8888';
const VISITOR = 'grace@example.test';
const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const OLD_ID = keyId(Buffer.from(OLD, 'base64'));
const NEW_ID = keyId(Buffer.from(NEW, 'base64'));

// Monday 1 March 2027, 03:59 in Portland; Tuesday 9:00 is 17:00 UTC, its reminder due at
// Monday 17:00 UTC.
const NOW = new Date('2027-03-01T11:59:00Z');
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const TUESDAY_945 = '2027-03-02T17:45:00Z';
const REMINDER_DUE = new Date('2027-03-01T17:00:30Z');

const LINK = /http:\/\/127\.0\.0\.1:8888\/consultation\/manage\?token=([A-Za-z0-9_-]{43})/g;

beforeAll(() => {
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
  process.env.CONTACT_TO = 'studio-inbox@example.test';
  process.env.SITE_URL = SITE;
});
afterAll(() => {
  delete process.env.PAGES_DIR;
  delete process.env.CONTACT_TO;
  delete process.env.SITE_URL;
});
beforeEach(() => {
  setClock(NOW);
  useKeys(OLD);
});
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
});

/** The keys the site runs with from here on (as after a deploy with new settings). */
function useKeys(current: string, old = '') {
  vi.stubEnv('WAIVER_ENCRYPTION_KEY', current);
  vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', old);
}

/** `npm run rotate-key`, with the new key and the old one, in a process of its own. */
function rotate(args: string[] = []): Promise<{ code: number | null; out: string; err: string }> {
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
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    child.on('close', (code) => done({ code, out, err }));
  });
}

/** Books `slot` and answers the booking's id and the token of its answer's link. */
async function book(slot: string, overrides: Record<string, unknown> = {}) {
  const answer = await bookConsultation(
    jsonPost(`${SITE}/api/consultation/book`, bookingBody(slot, overrides)),
  );
  expect(answer.status).toBe(200);
  const body = (await answer.json()) as { id: string; booking: { manage: string } };
  const token = new URL(body.booking.manage, SITE).searchParams.get('token')!;
  const [row] = (
    await env.db.query<{ id: string }>(
      `SELECT id FROM consultation_bookings WHERE manage_token_sha256 = $1`,
      [sha256(token)],
    )
  ).rows;
  return { id: row.id, token };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const mailsTo = (to: string) => env.smtp.mails.filter((mail) => mail.envelope.to.includes(to));

/** The manage links a mail carries, in its text and in its HTML: one link, the same in both. */
function linkIn(mail: ReceivedMail): string {
  const inText = [...(mail.text ?? '').matchAll(LINK)].map((m) => m[0]);
  const inHtml = [...String(mail.html || '').matchAll(LINK)].map((m) => m[0]);
  expect(new Set([...inText, ...inHtml]).size, `links in "${mail.subject}"`).toBe(1);
  return inText[0]!;
}

/** The URL of the event in a mail's calendar part (the invite's, or the cancellation's). */
function eventUrl(mail: ReceivedMail): string {
  const part = mail.attachments.find((a) => a.contentType === 'text/calendar')!;
  const event = Object.values(ical.sync.parseICS(part.content.toString('utf8'))).find(
    (c): c is VEvent => c?.type === 'VEVENT',
  )!;
  // node-ical gives a property with parameters as { params, val }.
  const url = event.url as unknown as string | { val: string };
  return typeof url === 'string' ? url : url.val;
}

/** Opens a link as the visitor's browser does: the page of the booking, or the 404. */
async function open(link: string) {
  const answer = await renderPage(new Request(link));
  return { status: answer.status, html: await answer.text() };
}

const manage = (token: string, fields: Record<string, string>) =>
  renderPage(formPost(`${SITE}/consultation/manage`, { token, ...fields }));

describe('the manage link across npm run rotate-key', () => {
  test('the reminder composed after the rotation carries the link of the original invite, and it opens the booking', async () => {
    const { token } = await book(TUESDAY_9);
    await env.smtp.waitForMails(2);
    const invited = linkIn(mailsTo(VISITOR)[0]!);
    expect(invited).toBe(`${SITE}/consultation/manage?token=${token}`);

    const run = await rotate();
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain(`1 booking link(s) re-encrypted to key ${NEW_ID} (1 from ${OLD_ID})`);
    expect(run.out).toContain('the older keys can go');
    expect(run.out).not.toContain(token);
    const [logged] = (
      await env.db.query<{ detail: Record<string, unknown> }>(
        `SELECT detail FROM records_access_log WHERE action = 'rotate-key'`,
      )
    ).rows;
    expect(logged.detail).toMatchObject({ toKey: NEW_ID, bookings: 1, remaining: 0 });
    expect(JSON.stringify(logged)).not.toContain(token);

    // The site now seals with the new key; the old one still given, as during a rotation.
    useKeys(NEW, OLD);
    setClock(REMINDER_DUE);
    expect(await (await retryMail()).json()).toMatchObject({ sent: 1, failed: 0 });
    const reminder = mailsTo(VISITOR).find((mail) => mail.subject?.startsWith('Reminder'))!;
    expect(reminder.subject).toBe('Reminder: your consultation on Tuesday, March 2 at 9:00 AM PST');
    expect(linkIn(reminder)).toBe(invited);
    const page = await open(linkIn(reminder));
    expect(page.status).toBe(200);
    expect(page.html).toContain('Tuesday, March 2, 2027');
    expect(page.html).toContain('Cancel my consultation');
  });

  test('with the old key removed after the rotation, the link still opens the booking, and a move’s new invite carries it', async () => {
    const { token } = await book(TUESDAY_9);
    await env.smtp.waitForMails(2);
    const invited = linkIn(mailsTo(VISITOR)[0]!);
    expect((await rotate()).code).toBe(0);

    useKeys(NEW);
    const page = await open(invited);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Tuesday, March 2, 2027');

    const moved = await manage(token, { action: 'move', slot: TUESDAY_945 });
    expect(moved.status).toBe(303);
    expect(moved.headers.get('location')).toBe(`/consultation/manage?token=${token}&done=moved`);
    await env.smtp.waitForMails(4);
    const invite = mailsTo(VISITOR)[1]!;
    expect(invite.subject).toBe('Your consultation has moved to Tuesday, March 2 at 9:45 AM PST');
    expect(linkIn(invite)).toBe(invited);
    expect((await open(invited)).html).toContain('9:45');
  });

  test('a cancellation from the desk after the rotation, the old key removed, carries the invite’s link, which shows the booking cancelled', async () => {
    const { id } = await book(TUESDAY_9);
    await env.smtp.waitForMails(2);
    const invite = mailsTo(VISITOR)[0]!;
    const invited = linkIn(invite);
    expect(eventUrl(invite)).toBe(invited);
    expect((await rotate()).code).toBe(0);

    useKeys(NEW);
    vi.stubEnv('STAFF_EMAILS', STAFF);
    const cookie = await signIn(env.smtp);
    const before = env.smtp.mails.length;
    const answer = await desk(`/api/records/consultations/${id}/cancel`, { cookie, body: {} });
    expect(answer.status).toBe(200);
    await env.smtp.waitForMails(before + 2);
    const cancelled = env.smtp.mails
      .slice(before)
      .find((mail) => mail.envelope.to.includes(VISITOR))!;
    expect(cancelled.subject).toBe(
      'Cancelled: your consultation on Tuesday, March 2 at 9:00 AM PST',
    );
    expect(eventUrl(cancelled)).toBe(invited);
    const page = await open(invited);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Your consultation is cancelled');
  });

  test('the database holds the token only hashed and sealed; a sealed value copied to another booking’s row opens nothing there', async () => {
    const first = await book(TUESDAY_9);
    const second = await book(TUESDAY_945, { email: 'alan@example.test', name: 'Alan Turing' });
    await env.smtp.waitForMails(4);

    const { rows } = await env.db.query<{
      id: string;
      manage_token_sha256: string;
      manage_token_sealed: string;
      whole: string;
    }>(
      `SELECT id, manage_token_sha256, manage_token_sealed, row_to_json(b)::text AS whole
         FROM consultation_bookings b`,
    );
    expect(rows).toHaveLength(2);
    const tables = (
      await env.db.query<{ dump: string }>(
        `SELECT string_agg(row_to_json(o)::text, '') AS dump FROM mail_outbox o`,
      )
    ).rows[0]!.dump;
    for (const { token, id } of [first, second]) {
      const row = rows.find((r) => r.id === id)!;
      expect(row.manage_token_sha256).toBe(sha256(token));
      expect(row.manage_token_sealed).toMatch(new RegExp(`^enc2:${OLD_ID}:`));
      expect(decryptField(row.manage_token_sealed, 'manageToken', id)).toBe(token);
      for (const stored of [...rows.map((r) => r.whole), tables]) {
        expect(stored).not.toContain(token);
      }
    }

    // The first booking's sealed token copied into the second's row: it does not open there.
    const sealedFirst = rows.find((r) => r.id === first.id)!.manage_token_sealed;
    await env.db.query(`UPDATE consultation_bookings SET manage_token_sealed = $2 WHERE id = $1`, [
      second.id,
      sealedFirst,
    ]);
    expect(() => decryptField(sealedFirst, 'manageToken', second.id)).toThrow();
    const copied = (await loadBooking(second.id))!;
    expect(() => manageToken(copied)).toThrow(/cannot be rebuilt|Unsupported state/);
    // Both reminders due: the first is sent with its own link; the second is not sent with any
    // (the outbox tries it again later), so the first's link never reaches the second visitor.
    setClock(new Date('2027-03-01T17:45:30Z'));
    expect(await (await retryMail()).json()).toMatchObject({ sent: 1 });
    expect(mailsTo(VISITOR).map((m) => m.subject)).toContain(
      'Reminder: your consultation on Tuesday, March 2 at 9:00 AM PST',
    );
    expect(mailsTo('alan@example.test').some((m) => m.subject?.startsWith('Reminder'))).toBe(false);
    for (const mail of env.smtp.mails.filter((m) => (m.text ?? '').includes(first.token))) {
      expect(mail.envelope.to).toEqual([VISITOR]);
    }
    const [held] = (
      await env.db.query<{ sent_at: Date | null; last_error: string | null }>(
        `SELECT sent_at, last_error FROM mail_outbox WHERE kind = 'booking-reminder' AND ref = $1`,
        [`${second.id}:0`],
      )
    ).rows;
    expect(held.sent_at).toBeNull();
    expect(held.last_error).not.toBeNull();
    // The second booking's own link still finds it (its hash is unchanged).
    expect((await open(`${SITE}/consultation/manage?token=${second.token}`)).status).toBe(200);
  });

  test('a booking made before tokens were sealed keeps its link: rebuilt under the key that made it, then sealed by the rotation', async () => {
    const { id } = await book(TUESDAY_9);
    // As such a row was stored: the token an HMAC of its id under the key, nothing sealed.
    const [{ token: legacy }] = keyedTokens('booking-manage', id);
    await env.db.query(
      `UPDATE consultation_bookings SET manage_token_sealed = NULL, manage_token_sha256 = $2
        WHERE id = $1`,
      [id, sha256(legacy)],
    );
    const link = `${SITE}/consultation/manage?token=${legacy}`;

    // The new key in use, the old one still given: mails composed now carry the old link.
    useKeys(NEW, OLD);
    expect(manageToken((await loadBooking(id))!)).toBe(legacy);
    const run = await rotate();
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      `1 booking link(s) re-encrypted to key ${NEW_ID} (1 from derived:${OLD_ID})`,
    );
    const [row] = (
      await env.db.query<{ manage_token_sealed: string }>(
        `SELECT manage_token_sealed FROM consultation_bookings WHERE id = $1`,
        [id],
      )
    ).rows;
    expect(row.manage_token_sealed).toMatch(new RegExp(`^enc2:${NEW_ID}:`));

    useKeys(NEW);
    setClock(REMINDER_DUE);
    expect(await (await retryMail()).json()).toMatchObject({ sent: 1, failed: 0 });
    const reminder = mailsTo(VISITOR).find((mail) => mail.subject?.startsWith('Reminder'))!;
    expect(linkIn(reminder)).toBe(link);
    expect((await open(link)).status).toBe(200);
  });

  test('a booking whose link no key given opens is named and left; the rest move, and --check counts it', async () => {
    const kept = await book(TUESDAY_9);
    useKeys(randomBytes(32).toString('base64'));
    const lost = await book(TUESDAY_945, { email: 'alan@example.test', name: 'Alan Turing' });

    const run = await rotate();
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      '1 booking link(s) could not be opened or rebuilt with the keys given',
    );
    expect(run.err).toContain(lost.id);
    expect(run.out).toContain(`1 booking link(s) re-encrypted to key ${NEW_ID}`);
    expect(run.out).toContain('1 stored value(s) are still not sealed');
    for (const token of [kept.token, lost.token]) {
      expect(run.out + run.err).not.toContain(token);
    }
    const check = await rotate(['--check']);
    expect(check.code).toBe(1);
    expect(check.out).toContain(`1 stored value(s) not yet sealed with key ${NEW_ID}`);

    useKeys(NEW);
    expect((await open(`${SITE}/consultation/manage?token=${kept.token}`)).status).toBe(200);
  });
});
