/**
 * Get Notified through its functions: the sign-up (double opt-in), the confirmation link's page,
 * the unsubscribe link (its page and RFC 8058's one-click POST), announcing an event from the desk
 * (once per event, paced, exactly once per address across a mail server outage), the desk's list,
 * and erasure. Real PostgreSQL, real SMTP (smtp-server, read back with mailparser).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import listSignUp from '../../functions/list-signup';
import { outbox } from '../../src/server/mail-kinds';
import { advanceClock, setClock } from '../../src/server/platform/clock';
import { applyRetention } from '../../src/server/retention/run';
import { newStoredToken } from '../../src/server/platform/tokens';
import { clientFingerprint } from '../../src/server/platform/crypto';
import { clientNetwork } from '../../src/server/request/rate-limit';
import { MIGRATIONS } from '../fixtures/databases';
import { UNSUBSCRIBE_TOKEN_FIELD } from '../../src/server/list/tokens';
import { listTokensNotOnCurrentKey, rotateListTokens } from '../../src/server/list/key-rotation';
import { randomBytes } from 'node:crypto';
import type { ListOverview } from '../../src/shared/desk-api';
import { LIST_WORDING } from '../../src/shared/list';
import { useFunctionEnv } from '../fixtures/function-env';
import { renderPage } from '../fixtures/on-demand';
import { startSmtp, type ReceivedMail, type TestSmtp } from '../fixtures/smtp';
import { desk, ORIGIN, signIn, STAFF } from './desk';
import { formPost, refusalPage } from './harness';

const env = useFunctionEnv();
const NOW = new Date('2027-03-01T12:00:00Z');
const VISITOR_IP = '203.0.113.44';

beforeAll(() => {
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
});
afterAll(() => {
  delete process.env.PAGES_DIR;
});
beforeEach(() => {
  setClock(NOW);
  vi.stubEnv('SITE_URL', ORIGIN);
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('LIST_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
});
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
});

/** A sign-up as the Events page's form posts it with scripts off (or on: it has no script). */
async function signUp(email: string, extra: Record<string, string> = {}): Promise<Response> {
  return listSignUp(formPost(`${ORIGIN}/api/notify`, { email, website: '', ...extra }), {
    ip: VISITOR_IP,
  } as never);
}

const mailsTo = (smtp: TestSmtp, to: string) =>
  smtp.mails.filter((mail) => mail.envelope.to.includes(to));

function linkIn(mail: ReceivedMail | undefined, path: string): string {
  const found = new RegExp(`${ORIGIN}${path}\\?token=[A-Za-z0-9_-]{43}`).exec(mail?.text ?? '');
  if (!found) throw new Error(`no ${path} link in the mail`);
  return found[0];
}

const confirmLink = (mail?: ReceivedMail) => linkIn(mail, '/notify/confirm');

/** The https URL of a mail's List-Unsubscribe header (every list mail has one). */
function unsubscribeLink(mail?: ReceivedMail): string {
  const line = mail?.headerLines.find((header) => header.key === 'list-unsubscribe')?.line ?? '';
  const url = /<(https?:[^>]+)>/.exec(line)?.[1];
  if (!url) throw new Error('no List-Unsubscribe URL in the mail');
  return url;
}

const near = (date: Date | null | undefined, at: Date) =>
  Math.abs((date?.getTime() ?? 0) - at.getTime()) < 5_000;

/** The Confirm button's POST, from the page the link opened. */
function pressConfirm(link: string, ip = '198.51.100.7'): Promise<Response> {
  const token = new URL(link).searchParams.get('token')!;
  return renderPage(formPost(`${ORIGIN}/notify/confirm`, { token }), { ip } as never);
}

/** RFC 8058: what a mail client sends by itself, with no cookie and no Origin. */
function oneClick(link: string): Promise<Response> {
  return renderPage(
    new Request(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    }),
  );
}

async function subscriber(email: string) {
  const { rows } = await env.db.query<{
    confirmed_at: Date | null;
    confirmed_from: string | null;
    confirmed_wording: string | null;
    unsubscribed_at: Date | null;
  }>(
    `SELECT confirmed_at, confirmed_from, confirmed_wording, unsubscribed_at
       FROM list_subscribers WHERE lower(email) = lower($1)`,
    [email],
  );
  return rows[0];
}

/** Signs `email` up and confirms it through its mail. */
async function confirmed(email: string): Promise<void> {
  const before = mailsTo(env.smtp, email).length;
  const all = env.smtp.mails.length;
  expect((await signUp(email)).status).toBe(303);
  await env.smtp.waitForMails(all + 1);
  const mail = mailsTo(env.smtp, email)[before];
  expect((await pressConfirm(confirmLink(mail))).status).toBe(303);
}

describe('signing up', () => {
  test('a sign-up is answered with the sent page and mails one confirmation, whose link opens a page that changes nothing', async () => {
    const answer = await signUp('ada@example.test');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/notify/sent');
    const [mail] = mailsTo(env.smtp, 'ada@example.test');
    expect(env.smtp.mails).toHaveLength(1);
    expect(mail.subject).toBe('Please confirm: Still Point Pilates event announcements');
    expect(mail.text).toContain('2140 SE Division St, Portland, OR 97202');

    for (let i = 0; i < 3; i++) {
      const page = await renderPage(new Request(confirmLink(mail)));
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('x-robots-tag')).toContain('noindex');
      const html = await page.text();
      expect(html).toContain('Confirm your address');
      expect(html).toContain('<button type="submit"');
    }
    expect((await subscriber('ada@example.test')).confirmed_at).toBeNull();
  });

  test('the Confirm button confirms once, recording when, from which network (hashed) and the wording; pressing it again changes nothing', async () => {
    await signUp('ada@example.test');
    const link = confirmLink(mailsTo(env.smtp, 'ada@example.test')[0]);
    const first = await pressConfirm(link);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(new URL(link).pathname + new URL(link).search);
    const row = await subscriber('ada@example.test');
    expect(near(row.confirmed_at, NOW)).toBe(true);
    expect(row.confirmed_wording).toBe(LIST_WORDING);
    expect(row.confirmed_from).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(row.confirmed_from).not.toContain('198.51.100.7');

    advanceClock(60_000);
    expect((await pressConfirm(link)).status).toBe(303);
    expect((await subscriber('ada@example.test')).confirmed_at).toEqual(row.confirmed_at);
    const page = await (await renderPage(new Request(link))).text();
    expect(page).toContain('You are on the list');
  });

  test('a known address gets the same answer as a new one, and a new confirmation mail and nothing else', async () => {
    await confirmed('ada@example.test');
    advanceClock(60_000);
    const mailsBefore = env.smtp.mails.length;
    const known = await signUp('ADA@example.test');
    const fresh = await signUp('grace@example.test');
    expect([known.status, known.headers.get('location')]).toEqual([
      fresh.status,
      fresh.headers.get('location'),
    ]);
    expect(await known.text()).toBe(await fresh.text());
    expect(env.smtp.mails.slice(mailsBefore).map((mail) => mail.subject)).toEqual([
      'Please confirm: Still Point Pilates event announcements',
      'Please confirm: Still Point Pilates event announcements',
    ]);
    expect(await env.count('list_subscribers')).toBe(2);
  });

  test('the same address posted again within a minute (a double click) stores and mails nothing more, and gets the same answer', async () => {
    const first = await signUp('ada@example.test');
    const second = await signUp('ada@example.test');
    expect([second.status, second.headers.get('location')]).toEqual([
      first.status,
      first.headers.get('location'),
    ]);
    expect(await env.count('list_confirmations')).toBe(1);
    advanceClock(61_000);
    await signUp('ada@example.test');
    expect(await env.count('list_confirmations')).toBe(2);
    expect(mailsTo(env.smtp, 'ada@example.test')).toHaveLength(2);
  });

  test('a confirmation link expires after 48 hours and then confirms nothing', async () => {
    await signUp('ada@example.test');
    const link = confirmLink(mailsTo(env.smtp, 'ada@example.test')[0]);
    advanceClock(48 * 3_600_000);
    const page = await renderPage(new Request(link));
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This link has expired');
    expect((await pressConfirm(link)).status).toBe(410);
    expect((await subscriber('ada@example.test')).confirmed_at).toBeNull();
  });

  test('a post that fills in the honeypot gets the same answer and no mail', async () => {
    const answer = await signUp('bot@example.test', { website: 'https://spam.example' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/notify/sent');
    // Mail is only ever sent from the outbox: with nothing queued, none can come later.
    expect(await env.count('mail_outbox')).toBe(0);
    expect(env.smtp.mails).toHaveLength(0);
  });

  test('an address that is not one is refused with a page naming the field, and nothing is stored', async () => {
    const answer = await signUp('not an address');
    expect(decodeURIComponent(answer.headers.get('location') ?? '')).not.toContain(
      'not an address',
    );
    const page = await refusalPage(answer);
    expect(page.status).toBe(422);
    expect(await page.text()).toMatch(/Email:<\/strong> /);
    expect(await env.count('list_subscribers')).toBe(0);
  });

  test('one address gets at most LIST_CONFIRM_LIMIT confirmation mails; past it the same answer, the mail held back', async () => {
    vi.stubEnv('LIST_CONFIRM_LIMIT', '2/24h');
    for (let i = 0; i < 3; i++) {
      const answer = await signUp('victim@example.test');
      expect(answer.status).toBe(303);
      advanceClock(60_000);
    }
    expect(mailsTo(env.smtp, 'victim@example.test')).toHaveLength(2);
    const { rows } = await env.db.query<{ skipped: string | null }>(
      `SELECT skipped FROM mail_outbox WHERE kind = 'list-confirm' ORDER BY id`,
    );
    expect(rows.map((row) => row.skipped)).toEqual([null, null, 'recipient-limit']);
  });
});

describe('the rate limits', () => {
  test("windows counted under the list's former names ('notify', 'notify-confirm-mail') still count once migration 0095 has run", async () => {
    vi.stubEnv('LIST_RATE_LIMIT', '3/1h');
    vi.stubEnv('LIST_CONFIRM_LIMIT', '1/24h');
    const email = 'counted@example.test';
    // What the site counted before the rename: two sign-ups from this client this hour, and one
    // confirmation mail to this address today (NOW is 12:00 UTC, where both windows start).
    await env.db.query(
      `INSERT INTO rate_limit_hits (bucket, client_hash, window_start, hits)
       VALUES ('notify', $1, '2027-03-01T12:00:00Z', 2),
              ('notify-confirm-mail', $2, '2027-03-01T00:00:00Z', 1)`,
      [clientFingerprint(clientNetwork(VISITOR_IP)), clientFingerprint(email)],
    );
    await env.db.exec(
      await readFile(resolve(MIGRATIONS, '0095_list_rate_limit_buckets.sql'), 'utf8'),
    );
    const { rows } = await env.db.query<{ bucket: string }>(
      `SELECT bucket FROM rate_limit_hits ORDER BY bucket`,
    );
    expect(rows.map((row) => row.bucket)).toEqual(['list', 'list-confirm-mail']);

    // The third sign-up this hour is let through, its confirmation mail held back (the second today).
    expect((await signUp(email)).status).toBe(303);
    const held = await env.db.query<{ skipped: string | null }>(
      `SELECT skipped FROM mail_outbox WHERE kind = 'list-confirm'`,
    );
    expect(held.rows.map((row) => row.skipped)).toEqual(['recipient-limit']);
    // The fourth is over the client's limit.
    advanceClock(60_000);
    const page = await refusalPage(await signUp(email));
    expect(page.status).toBe(429);
  });
});

describe('unsubscribing', () => {
  test('the link opens a page that asks and changes nothing; a one-click POST without cookies or Origin unsubscribes at once and answers 200', async () => {
    await confirmed('ada@example.test');
    const link = unsubscribeLink(mailsTo(env.smtp, 'ada@example.test')[0]);
    const page = await renderPage(new Request(link));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Unsubscribe from event announcements?');
    expect((await subscriber('ada@example.test')).unsubscribed_at).toBeNull();

    const answer = await oneClick(link);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('You are unsubscribed');
    expect((await subscriber('ada@example.test')).unsubscribed_at).not.toBeNull();
    expect((await oneClick(link)).status).toBe(200);
  });

  test('an address that left and signs up again gets a confirmation only; a link made before it left no longer confirms', async () => {
    await signUp('ada@example.test');
    const oldLink = confirmLink(mailsTo(env.smtp, 'ada@example.test')[0]);
    await pressConfirm(oldLink);
    await oneClick(unsubscribeLink(mailsTo(env.smtp, 'ada@example.test')[0]));
    advanceClock(60_000);

    expect((await signUp('ada@example.test')).status).toBe(303);
    expect((await subscriber('ada@example.test')).unsubscribed_at).not.toBeNull();
    const mails = mailsTo(env.smtp, 'ada@example.test');
    expect(mails).toHaveLength(2);
    expect(mails[1].subject).toContain('Please confirm');

    const page = await renderPage(new Request(oldLink));
    expect(page.status).toBe(410);
    expect((await subscriber('ada@example.test')).unsubscribed_at).not.toBeNull();

    expect((await pressConfirm(confirmLink(mails[1]))).status).toBe(303);
    expect((await subscriber('ada@example.test')).unsubscribed_at).toBeNull();
  });

  test('a link with an unknown token answers 404 and changes nothing', async () => {
    const link = `${ORIGIN}/notify/unsubscribe?token=${'a'.repeat(43)}`;
    expect((await renderPage(new Request(link))).status).toBe(404);
    expect((await oneClick(link)).status).toBe(404);
  });
});

describe('announcing from the desk', () => {
  async function drainAll(): Promise<void> {
    for (;;) {
      const summary = await outbox.drain({ batch: 100, concurrency: 8, budgetMs: 60_000 });
      if (summary.sent + summary.retrying + summary.failed + summary.retired === 0) return;
    }
  }

  test('an event goes once to the confirmed addresses only, with List-Id, both List-Unsubscribe headers, an unsubscribe link and the postal address', async () => {
    await confirmed('ada@example.test');
    await confirmed('grace@example.test');
    await signUp('pending@example.test');
    const cookie = await signIn(env.smtp);
    const overview = (await (
      await desk('/api/records/list', { cookie })
    ).json()) as ListOverview & { success: true };
    expect(overview.counts).toEqual({ confirmed: 2, pending: 1, unsubscribed: 0 });
    expect(overview.events.map((event) => event.id)).toEqual([
      'spring-reformer-workshop',
      'park-mat-class',
    ]);

    const sent = await desk('/api/records/list/announce', {
      cookie,
      body: { eventId: 'spring-reformer-workshop' },
    });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ recipients: 2 });
    const again = await desk('/api/records/list/announce', {
      cookie,
      body: { eventId: 'spring-reformer-workshop' },
    });
    expect(again.status).toBe(409);

    const before = env.smtp.mails.length;
    await drainAll();
    const announcements = env.smtp.mails.slice(before);
    expect(announcements.map((mail) => mail.envelope.to[0]).sort()).toEqual([
      'ada@example.test',
      'grace@example.test',
    ]);
    const [mail] = announcements;
    expect(mail.subject).toContain('Spring Reformer Workshop');
    expect(mail.headerLines.find((h) => h.key === 'list-unsubscribe-post')?.line).toBe(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );
    expect(mail.headerLines.find((h) => h.key === 'list-unsubscribe')?.line).toMatch(
      /^List-Unsubscribe:\s+<http:\/\/127\.0\.0\.1:8888\/notify\/unsubscribe\?token=[A-Za-z0-9_-]{43}>/,
    );
    expect(mail.headerLines.find((h) => h.key === 'list-id')?.line).toContain(
      '<events.stillpointpilates.studio>',
    );
    expect(mail.text).toContain('Unsubscribe');
    expect(mail.html).toContain('/notify/unsubscribe?token=');
    expect(mail.text).toContain('Still Point Pilates, 2140 SE Division St, Portland, OR 97202');
    expect(mail.text).toContain('Saturday, April 17, 2027, 9:30 AM – 12:00 PM PDT');

    // The one-click URL in the header unsubscribes; the next event does not reach that address.
    const oneClickUrl = /<([^>]+)>/.exec(
      mail.headerLines.find((h) => h.key === 'list-unsubscribe')!.line,
    )![1];
    expect((await oneClick(oneClickUrl)).status).toBe(200);
    const left = mail.envelope.to[0];
    const before2 = env.smtp.mails.length;
    await desk('/api/records/list/announce', { cookie, body: { eventId: 'park-mat-class' } });
    await drainAll();
    expect(env.smtp.mails.slice(before2).map((m) => m.envelope.to[0])).toEqual(
      ['ada@example.test', 'grace@example.test'].filter((to) => to !== left),
    );
  });

  test('an event that is over or unknown cannot be announced', async () => {
    const cookie = await signIn(env.smtp);
    for (const eventId of ['over-already', 'no-such-event']) {
      const answer = await desk('/api/records/list/announce', { cookie, body: { eventId } });
      expect(answer.status).toBe(404);
    }
    expect(await env.count('list_announcements')).toBe(0);
  });

  test('2,000 confirmed addresses: queued in turns of LIST_SEND_RATE, and with the mail server stopped halfway and started again, each gets exactly one mail', async () => {
    vi.stubEnv('LIST_SEND_RATE', '500/1m');
    await env.db.query(
      `INSERT INTO list_subscribers (email, signed_up_at, confirmed_at, confirmed_wording)
       SELECT 'reader' || n || '@example.test', $1, $1, 'test' FROM generate_series(1, 2000) n`,
      [NOW],
    );
    // Their unsubscribe links, as a sign-up makes them.
    const { rows: ids } = await env.db.query<{ id: string }>(
      `SELECT id::text FROM list_subscribers`,
    );
    const links = ids.map(({ id }) => ({ id, ...newStoredToken(UNSUBSCRIBE_TOKEN_FIELD, id) }));
    await env.db.query(
      `UPDATE list_subscribers s SET unsubscribe_sealed = l.sealed, unsubscribe_hash = l.sha256
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS l(id, sealed, sha256)
        WHERE s.id = l.id`,
      [links.map((l) => l.id), links.map((l) => l.sealed), links.map((l) => l.sha256)],
    );
    const cookie = await signIn(env.smtp);
    const answer = await desk('/api/records/list/announce', {
      cookie,
      body: { eventId: 'spring-reformer-workshop' },
    });
    const announced = (await answer.json()) as { recipients: number; lastDue: string };
    expect(announced.recipients).toBe(2000);
    expect(near(new Date(announced.lastDue), new Date(NOW.getTime() + 3 * 60_000))).toBe(true);
    const { rows: turns } = await env.db.query<{ due: Date; n: number }>(
      `SELECT next_attempt_at AS due, count(*)::int AS n FROM mail_outbox
        WHERE kind = 'list-announcement' GROUP BY 1 ORDER BY 1`,
    );
    expect(turns.map((turn) => turn.n)).toEqual([500, 500, 500, 500]);

    // The first turns go out until about half of the list has been sent; then the server stops.
    const first = await startSmtp();
    process.env.SMTP_URL = first.url;
    const received: ReceivedMail[] = [];
    const announcementsIn = (smtp: TestSmtp) =>
      smtp.mails.filter((mail) => mail.subject?.startsWith('New at'));
    advanceClock(60_000);
    const halfway = first.waitForMails(first.mails.length + 1000, 120_000).then(async () => {
      first.setFailing(true);
      await first.stop();
    });
    const draining = drainAll();
    await halfway;
    await draining;
    received.push(...announcementsIn(first));
    expect(received.length).toBeGreaterThanOrEqual(1000);
    expect(received.length).toBeLessThan(2000);

    // Everything else is still owed; a new server comes up and the senders catch up.
    const second = await startSmtp();
    try {
      process.env.SMTP_URL = second.url;
      for (let hour = 0; hour < 3; hour++) {
        advanceClock(3_600_000);
        await drainAll();
      }
      received.push(...announcementsIn(second));
    } finally {
      await second.stop();
      process.env.SMTP_URL = env.smtp.url;
    }
    const perAddress = new Map<string, number>();
    for (const mail of received) {
      const to = mail.envelope.to[0];
      perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    }
    expect(perAddress.size).toBe(2000);
    expect([...perAddress.values()].every((n) => n === 1)).toBe(true);
    const { rows } = await env.db.query<{ unsent: number }>(
      `SELECT count(*)::int AS unsent FROM mail_outbox
        WHERE kind = 'list-announcement' AND sent_at IS NULL`,
    );
    expect(rows[0].unsent).toBe(0);
  }, 240_000);
});

describe("the desk's list", () => {
  test('exports the list as CSV and removes an address, which then gets no announcement', async () => {
    await confirmed('ada@example.test');
    await confirmed('grace@example.test');
    const cookie = await signIn(env.smtp);
    const csv = await desk('/api/records/list/export', { cookie });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const bytes = Buffer.from(await csv.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text).toContain('email,state,signed_up_at,confirmed_at,wording_agreed_to');
    expect(text).toContain('ada@example.test,confirmed,');

    expect(
      (await desk('/api/records/list/remove', { cookie, body: { email: 'Ada@Example.test' } }))
        .status,
    ).toBe(200);
    expect(
      (await desk('/api/records/list/remove', { cookie, body: { email: 'x@example.test' } }))
        .status,
    ).toBe(404);
    const overview = (await (await desk('/api/records/list', { cookie })).json()) as ListOverview;
    expect(overview.counts).toEqual({ confirmed: 1, pending: 0, unsubscribed: 1 });
  });

  test("a participant's erasure removes their address and its mails from the list", async () => {
    await confirmed('ada@example.test');
    const cookie = await signIn(env.smtp);
    const preview = await desk('/api/records/erasure/preview', {
      cookie,
      body: { email: 'ada@example.test' },
    });
    expect(await preview.json()).toMatchObject({ preview: { listed: true } });
    const erased = await desk('/api/records/erasure', {
      cookie,
      body: { email: 'ada@example.test', confirm: 'ada@example.test' },
    });
    expect(erased.status).toBe(200);
    expect(await erased.json()).toMatchObject({ erased: { subscriptions: 1 } });
    expect(await env.count('list_subscribers')).toBe(0);
    expect(await env.count('list_confirmations')).toBe(0);
    const { rows } = await env.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mail_outbox WHERE kind LIKE 'list-%'`,
    );
    expect(rows[0].n).toBe(0);
  });
});

describe('keeping', () => {
  test('the retention run removes sign-ups never confirmed after 30 days and unsubscribed addresses after a year, keeping the list', async () => {
    await confirmed('kept@example.test');
    await signUp('pending@example.test');
    await confirmed('left@example.test');
    await oneClick(unsubscribeLink(mailsTo(env.smtp, 'left@example.test')[0]));

    const day = 24 * 3_600_000;
    await applyRetention(new Date(NOW.getTime() + 29 * day));
    expect(await env.count('list_subscribers')).toBe(3);
    await applyRetention(new Date(NOW.getTime() + 33 * day));
    const { rows } = await env.db.query<{ email: string }>(
      `SELECT email FROM list_subscribers ORDER BY email`,
    );
    expect(rows.map((row) => row.email)).toEqual(['kept@example.test', 'left@example.test']);
    expect(await env.count('list_confirmations')).toBe(0);
    const { rows: mails } = await env.db.query<{ ref: string }>(
      `SELECT ref FROM mail_outbox WHERE kind = 'list-confirm'`,
    );
    expect(mails).toHaveLength(2);

    await applyRetention(new Date(NOW.getTime() + 367 * day));
    const { rows: after } = await env.db.query<{ email: string }>(
      `SELECT email FROM list_subscribers`,
    );
    expect(after.map((row) => row.email)).toEqual(['kept@example.test']);
  });
});

describe('the tokens at rest', () => {
  test('are stored only as a hash and sealed; after a key rotation with the old key gone, retried mails carry the same links and they still work', async () => {
    const OLD = randomBytes(32).toString('base64');
    const NEW = randomBytes(32).toString('base64');
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', OLD);
    await signUp('ada@example.test');
    const first = mailsTo(env.smtp, 'ada@example.test')[0];
    const token = new URL(confirmLink(first)).searchParams.get('token')!;
    const { rows } = await env.db.query<Record<string, string>>(
      `SELECT c.token_hash, c.token_sealed, s.unsubscribe_sealed
         FROM list_confirmations c JOIN list_subscribers s ON s.id = c.subscriber_id`,
    );
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0].token_sealed).toMatch(/^enc2:/);

    vi.stubEnv('WAIVER_ENCRYPTION_KEY', NEW);
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', OLD);
    expect(await listTokensNotOnCurrentKey()).toBe(2);
    expect(await rotateListTokens()).toEqual({ tokens: 2, unreadable: [], remaining: 0 });
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', '');

    // The confirmation composed again (a retry) carries the link first sent, which still works.
    await env.db.query(`UPDATE mail_outbox SET sent_at = NULL, next_attempt_at = now()`);
    await outbox.drain();
    const again = mailsTo(env.smtp, 'ada@example.test')[1];
    expect(confirmLink(again)).toBe(confirmLink(first));
    expect(unsubscribeLink(again)).toBe(unsubscribeLink(first));
    expect((await pressConfirm(confirmLink(again))).status).toBe(303);
  });
});
