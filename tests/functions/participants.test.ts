/**
 * Participants on the records desk, through its functions: waivers grouped by e-mail address in
 * any case, each person's status (covered, an older version, expired, nothing on file), the
 * health change flagged only with the health details (and logged), the texts as signed, and
 * re-sign requests for a material new version: queued once per person per version, mailed with
 * a link that fills the form. Real PostgreSQL, real SMTP; new versions in a copy of content/.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import waiverReSign from '../../functions/waiver-re-sign';
import { rotateListTokens } from '../../src/server/list/key-rotation';
import { reSignMail } from '../../src/server/waiver/re-sign';
import { setClock } from '../../src/server/platform/clock';
import { tokenHash } from '../../src/server/platform/tokens';
import type {
  LogRow,
  MessageRow,
  Page,
  ParticipantHealth,
  ParticipantRow,
  ParticipantView,
  ReSignRow,
  WaiverTexts,
} from '../../src/shared/desk-api';
import { versionsFromHistory, WAIVER_VERSIONS_FILE } from '../../src/shared/waiver-versions';
import { stateOf } from '../../src/integrations/waiver-history';
import { useFunctionEnv } from '../fixtures/function-env';
import { desk, ORIGIN, sendMessage, signIn, signWaiver, STAFF } from './desk';

const env = useFunctionEnv();
const CONTENT = resolve(import.meta.dirname, '../../content');

beforeEach(() => {
  vi.stubEnv('STAFF_EMAILS', STAFF);
  vi.stubEnv('CONTACT_TO', 'studio-inbox@example.test');
  vi.stubEnv('SIGN_IN_RATE_LIMIT', '1000/1m');
  vi.stubEnv('SIGN_IN_ADDRESS_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_RATE_LIMIT', '1000/1m');
  vi.stubEnv('WAIVER_COPY_LIMIT', '1000/1h');
  vi.stubEnv('CONTACT_RATE_LIMIT', '1000/1m');
});
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
});

/** The waiver form exchanging a re-sign link's token, as its script does: in a POST's body. */
const openLink = (token: string, origin = ORIGIN) =>
  waiverReSign(
    new Request(`${ORIGIN}/api/waiver/re-sign`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    }),
  );

async function json<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  expect(answer.status).toBe(200);
  return (await answer.json()) as T;
}

/**
 * Publishes a new version of the waiver in a copy of content/, as the instructor would (the
 * text changed, its version and material lines), and points the functions at it and at the
 * list of versions the build would write from the repository's history: the version published
 * before, then this one.
 */
function publish(
  version: string,
  material: boolean,
  extra: { validForMonths?: number; changes?: string } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'waiver-version-'));
  cpSync(CONTENT, dir, { recursive: true });
  const published = readFileSync(join(dir, 'waiver.md'), 'utf8');
  const lines = `version: '${version}'\nmaterial: ${material}${
    extra.validForMonths ? `\nvalidForMonths: ${extra.validForMonths}` : ''
  }${extra.changes ? `\nchanges: ${JSON.stringify(extra.changes)}` : ''}`;
  const source = published
    .replace("version: '2026-11'\nmaterial: true", lines)
    .replace(/\n## /, `\nA paragraph added in ${version}.\n\n## `);
  expect(source).toContain(lines);
  writeFileSync(join(dir, 'waiver.md'), source);
  const pages = mkdtempSync(join(tmpdir(), 'waiver-pages-'));
  const { versions } = versionsFromHistory([stateOf(published)!, stateOf(source)!]);
  writeFileSync(join(pages, WAIVER_VERSIONS_FILE), JSON.stringify({ versions }));
  vi.stubEnv('CONTENT_DIR', dir);
  vi.stubEnv('PAGES_DIR', pages);
}

async function quickCheck(cookie: string, q: string) {
  const answer = await json<{ items: ParticipantRow[] }>(
    desk(`/api/records/participants?q=${encodeURIComponent(q)}`, { cookie }),
  );
  return answer.items;
}

describe('participants', () => {
  test('waivers signed with one address in two cases are one participant, covered, with both waivers', async () => {
    const first = await signWaiver({ email: 'Ingrid.Okonkwo@Example.TEST' });
    const second = await signWaiver({ email: 'ingrid.okonkwo@example.test', firstName: 'Ingrid' });
    await signWaiver({ email: 'someone@example.test', firstName: 'Sam', lastName: 'Other' });
    const cookie = await signIn(env.smtp);

    const found = await quickCheck(cookie, 'okonk');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      status: 'covered',
      waivers: 2,
      waiverId: second,
      email: 'ingrid.okonkwo@example.test',
      version: '2026-11',
    });

    const { participant } = await json<{ participant: ParticipantView }>(
      desk(`/api/records/participants/${first}`, { cookie }),
    );
    expect(participant.status).toBe('covered');
    expect(participant.signed.map((waiver) => waiver.id)).toEqual([second, first]);
    // No health information in the participant's view.
    expect(JSON.stringify(participant)).not.toContain('scoliosis');
  });

  test('the quick check finds by part of a name, e-mail or phone, and says nothing on file for nobody', async () => {
    await signWaiver({
      email: 'ana@example.test',
      firstName: 'Ana',
      lastName: 'Lima',
      phone: '555 0101',
    });
    const cookie = await signIn(env.smtp);
    expect((await quickCheck(cookie, 'lim'))[0]?.status).toBe('covered');
    expect((await quickCheck(cookie, 'ANA@EXA'))[0]?.name).toBe('Ana Lima');
    expect((await quickCheck(cookie, '0101'))[0]?.name).toBe('Ana Lima');
    expect(await quickCheck(cookie, 'zebedee')).toEqual([]);
    const short = await desk('/api/records/participants?q=a', { cookie });
    expect(short.status).toBe(422);
  });

  test('the quick check finds a phone number however it is typed', async () => {
    await signWaiver({ email: 'rosa@example.test', firstName: 'Rosa', phone: '(503) 555-0142' });
    await signWaiver({ email: 'other@example.test', firstName: 'Olga', phone: '503-555-0199' });
    const cookie = await signIn(env.smtp);
    for (const typed of [
      '5550142',
      '503 555 0142',
      '5035550142',
      '503.555.0142',
      '(503)555-0142',
      '+1 503 555 0142',
      '15035550142',
    ]) {
      const found = await quickCheck(cookie, typed);
      expect(
        found.map((row) => [row.name.split(' ')[0], row.status]),
        typed,
      ).toEqual([['Rosa', 'covered']]);
    }
    expect(await quickCheck(cookie, '5035550143')).toEqual([]);
    // Digits among letters are no phone number: not found by the digits they hold.
    expect(await quickCheck(cookie, 'rosa 5550142')).toEqual([]);
  });

  test('messages carry their sender’s status, by e-mail in any case', async () => {
    await signWaiver({ email: 'nia@example.test', firstName: 'Nia' });
    await sendMessage({ name: 'Nia', email: 'NIA@example.test' });
    await sendMessage({ name: 'Olu', email: 'olu@example.test' });
    const cookie = await signIn(env.smtp);
    const page = await json<Page<MessageRow>>(desk('/api/records/messages', { cookie }));
    const status = Object.fromEntries(page.items.map((row) => [row.email, row.waiverStatus]));
    expect(status).toEqual({ 'NIA@example.test': 'covered', 'olu@example.test': 'none' });
  });

  test('a change of health information is flagged by field name with the health details only, and that view is logged', async () => {
    const first = await signWaiver({ email: 'Kai@example.test', medicalConditions: 'None' });
    await signWaiver({ email: 'kai@example.test', medicalConditions: 'Sprained ankle in May' });
    const cookie = await signIn(env.smtp);

    const { participant } = await json<{ participant: ParticipantView }>(
      desk(`/api/records/participants/${first}`, { cookie }),
    );
    expect(JSON.stringify(participant)).not.toMatch(/Medical|Sprained/);

    const { health } = await json<{ health: ParticipantHealth }>(
      desk(`/api/records/participants/${first}/health`, { cookie }),
    );
    expect(health.lastChange?.fields).toEqual(['Medical Conditions or Injuries']);
    expect(health.latest.find((field) => field.name === 'medicalConditions')?.value).toBe(
      'Sprained ankle in May',
    );
    const log = await json<Page<LogRow>>(desk('/api/records/log', { cookie }));
    expect(log.items[0]).toMatchObject({
      action: 'view-participant-health',
      recordKind: 'waiver',
      recordId: first,
    });
    expect(JSON.stringify(log.items[0])).not.toContain('Sprained');
  });

  test('the same health information signed again is no change', async () => {
    const first = await signWaiver({ email: 'lea@example.test' });
    await signWaiver({ email: 'LEA@example.test' });
    const cookie = await signIn(env.smtp);
    const { health } = await json<{ health: ParticipantHealth }>(
      desk(`/api/records/participants/${first}/health`, { cookie }),
    );
    expect(health.lastChange).toBeNull();
  });
});

describe('versions of the text', () => {
  test('a material new version makes earlier signers "older version"; a non-material one keeps them covered', async () => {
    await signWaiver({ email: 'Mo@example.test', firstName: 'Mo' });
    const cookie = await signIn(env.smtp);

    publish('2027-01', false);
    expect((await quickCheck(cookie, 'mo@'))[0]?.status).toBe('covered');
    const reSign = await json<{ items: ReSignRow[] }>(desk('/api/records/re-sign', { cookie }));
    expect(reSign.items).toEqual([]);

    publish('2027-02', true);
    expect((await quickCheck(cookie, 'mo@'))[0]).toMatchObject({
      status: 'older',
      version: '2026-11',
    });
  });

  test('every signed text is readable as signed, with its number of signatures', async () => {
    await signWaiver({ email: 'p1@example.test' });
    await signWaiver({ email: 'p2@example.test' });
    await signWaiver({ email: 'p3@example.test' }, true);
    publish('2027-02', true);
    await signWaiver({ email: 'p1@example.test' });
    const cookie = await signIn(env.smtp);
    const { texts, current } = await json<WaiverTexts>(
      desk('/api/records/waiver-texts', { cookie }),
    );
    expect(current).toMatchObject({ version: '2027-02', material: true, reSignFrom: '2027-02' });
    expect(
      texts.map((text) => [text.version, text.signatures, text.inForce, text.material]),
    ).toEqual([
      ['2027-02', 1, true, true],
      ['2026-11', 2, false, true],
    ]);
    expect(texts[0]!.text).toContain('A paragraph added in 2027-02.');
    expect(texts[1]!.text).not.toContain('A paragraph added');
  });

  test('validForMonths marks a latest waiver older than that as expired', async () => {
    setClock(new Date('2027-01-10T12:00:00Z'));
    await signWaiver({ email: 'old@example.test' });
    const cookie = await signIn(env.smtp);
    publish('2026-11b', false, { validForMonths: 12 });
    expect((await quickCheck(cookie, 'old@'))[0]?.status).toBe('covered');
    setClock(new Date('2028-01-11T12:00:00Z'));
    const again = await signIn(env.smtp);
    expect((await quickCheck(again, 'old@'))[0]?.status).toBe('expired');
  });
});

describe('re-sign requests', () => {
  test('are queued once per person per version however often pressed, mailed with a link that fills the form, and signing covers them again', async () => {
    await signWaiver({ email: 'Rosa@Example.test', firstName: 'Rosa', lastName: 'Diaz' });
    await signWaiver({ email: 'rosa@example.test', firstName: 'Rosa', lastName: 'Diaz' });
    await signWaiver({ email: 'tom@example.test', firstName: 'Tom', lastName: 'Berg' });
    const cookie = await signIn(env.smtp);
    publish('2027-02', true);

    const listed = await json<{ items: ReSignRow[] }>(desk('/api/records/re-sign', { cookie }));
    expect(listed.items.map((row) => row.name).sort()).toEqual(['Rosa Diaz', 'Tom Berg']);

    const before = env.smtp.mails.length;
    const presses = await Promise.all(
      [1, 2, 3].map(() =>
        json<{ requested: number }>(desk('/api/records/re-sign', { body: {}, cookie })),
      ),
    );
    expect(presses.map((press) => press.requested).reduce((a, b) => a + b)).toBe(2);
    const again = await json<{ requested: number }>(
      desk('/api/records/re-sign', { body: {}, cookie }),
    );
    expect(again.requested).toBe(0);
    await env.smtp.waitForMails(before + 2);
    await expect
      .poll(() => env.smtp.mails.filter((m) => m.subject?.includes('updated')).length)
      .toBe(2);
    const { rows } = await env.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mail_outbox WHERE kind = 'waiver-re-sign'`,
    );
    expect(rows[0]!.n).toBe(2);
    expect(await env.count('waiver_resign_requests')).toBe(2);

    const requests = env.smtp.mails.filter((m) => m.subject?.includes('updated liability waiver'));
    expect(
      requests
        .map((m) => m.envelope.to)
        .flat()
        .sort(),
    ).toEqual(['rosa@example.test', 'tom@example.test']);
    const mail = requests.find((m) => m.envelope.to.includes('rosa@example.test'))!;
    expect(mail.subject).toBe('Please sign the updated liability waiver - Still Point Pilates');
    const link = /https?:\/\/\S+\/waiver#re-sign=([A-Za-z0-9_-]{43})/.exec(mail.text ?? '');
    expect(link).not.toBeNull();
    expect(link![0]).not.toContain('?');
    expect(link![0]).not.toMatch(/rosa/i);
    const token = link![1]!;
    const stored = await env.db.query<{ token_sha256: string }>(
      `SELECT token_sha256 FROM waiver_resign_requests`,
    );
    expect(stored.rows.map((row) => row.token_sha256)).not.toContain(token);
    expect(stored.rows.map((row) => row.token_sha256)).toContain(tokenHash(token));

    // Following the link twice reads the same and changes nothing.
    for (const _ of [1, 2]) {
      const opened = await openLink(token);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('cache-control')).toBe('no-store');
      expect(await opened.json()).toEqual({
        success: true,
        firstName: 'Rosa',
        lastName: 'Diaz',
        email: 'rosa@example.test',
        version: '2027-02',
      });
    }
    expect(await env.count('waiver_resign_requests')).toBe(2);
    const forged = await openLink('x'.repeat(43));
    expect(forged.status).toBe(404);

    const listedAgain = await json<{ items: ReSignRow[] }>(
      desk('/api/records/re-sign', { cookie }),
    );
    expect(listedAgain.items.every((row) => row.requestedAt)).toBe(true);

    await signWaiver({ email: 'rosa@example.test', firstName: 'Rosa', lastName: 'Diaz' });
    expect((await quickCheck(cookie, 'rosa'))[0]?.status).toBe('covered');
    const left = await json<{ items: ReSignRow[] }>(desk('/api/records/re-sign', { cookie }));
    expect(left.items.map((row) => row.name)).toEqual(['Tom Berg']);
  });

  test('a re-sign link is exchanged only in a POST body from the site, says what changed, expires, and is spent by signing', async () => {
    vi.stubEnv('WAIVER_RE_SIGN_DAYS', '14');
    await signWaiver({ email: 'rosa@example.test', firstName: 'Rosa', lastName: 'Diaz' });
    await signWaiver({ email: 'tom@example.test', firstName: 'Tom', lastName: 'Berg' });
    const cookie = await signIn(env.smtp);
    publish('2027-02', true, { changes: 'Section 3 now covers the reformer and the tower.' });
    const before = env.smtp.mails.length;
    await json(desk('/api/records/re-sign', { body: {}, cookie }));
    await env.smtp.waitForMails(before + 2);
    const tokenFor = (address: string) =>
      /\/waiver#re-sign=([A-Za-z0-9_-]{43})/.exec(
        env.smtp.mails.find(
          (m) => m.subject?.includes('updated') && m.envelope.to.includes(address),
        )?.text ?? '',
      )![1]!;
    const rosa = tokenFor('rosa@example.test');
    const tom = tokenFor('tom@example.test');

    // The token never travels in a path or a query: GET is refused, and so is another site.
    const byPath = await waiverReSign(new Request(`${ORIGIN}/api/waiver/re-sign/${rosa}`));
    expect(byPath.status).toBe(405);
    expect(await byPath.text()).not.toContain('Rosa');
    expect((await openLink(rosa, 'https://evil.example')).status).toBe(403);

    const opened = await openLink(rosa);
    expect(await opened.json()).toMatchObject({
      success: true,
      firstName: 'Rosa',
      version: '2027-02',
      changes: 'Section 3 now covers the reformer and the tower.',
    });

    // Signing spends her link; Tom's still opens until its 14 days are over.
    await signWaiver({ email: 'Rosa@example.test', firstName: 'Rosa', lastName: 'Diaz' });
    const spent = await openLink(rosa);
    expect(spent.status).toBe(410);
    expect((await spent.json()).error).toMatch(/already been used/);
    setClock(new Date(Date.now() + 13 * 86_400_000));
    expect((await openLink(tom)).status).toBe(200);
    setClock(new Date(Date.now() + 15 * 86_400_000));
    const expired = await openLink(tom);
    expect(expired.status).toBe(410);
    expect(JSON.stringify(await expired.json())).not.toContain('Tom');
    // A mail of an expired link still owed is not sent.
    const { rows } = await env.db.query<{ ref: string }>(
      `SELECT ref FROM mail_outbox WHERE kind = 'waiver-re-sign'`,
    );
    const composed = await Promise.all(rows.map((row) => reSignMail(row.ref)));
    expect(composed.every((mail) => mail && 'retired' in mail)).toBe(true);
  });

  test('a re-sign mail composed after the key changed carries the link first mailed, which still opens', async () => {
    const OLD = 'a'.repeat(64);
    const NEW = 'c'.repeat(64);
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', OLD);
    await signWaiver({ email: 'rosa@example.test', firstName: 'Rosa', lastName: 'Diaz' });
    const cookie = await signIn(env.smtp);
    publish('2027-02', true);
    const before = env.smtp.mails.length;
    await json(desk('/api/records/re-sign', { body: {}, cookie }));
    await env.smtp.waitForMails(before + 1);
    const mailed = env.smtp.mails
      .filter((m) => m.subject?.includes('updated liability waiver'))
      .map((m) => /https?:\/\/\S+\/waiver#re-sign=[A-Za-z0-9_-]{43}/.exec(m.text ?? '')?.[0]);
    expect(mailed).toHaveLength(1);
    const { rows } = await env.db.query<{ ref: string }>(
      `SELECT ref FROM mail_outbox WHERE kind = 'waiver-re-sign'`,
    );

    // The key changes, the rotation re-seals the token, and the old key goes.
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', NEW);
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', OLD);
    expect(await rotateListTokens()).toMatchObject({ tokens: 1, unreadable: [], remaining: 0 });
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', '');

    // A retry of that mail (composed now) carries the same link, and it still opens.
    const again = await reSignMail(rows[0]!.ref);
    const link = /https?:\/\/\S+\/waiver#re-sign=([A-Za-z0-9_-]{43})/.exec(
      (again as { text: string }).text,
    );
    expect(link![0]).toBe(mailed[0]);
    const opened = await openLink(link![1]!);
    expect(opened.status).toBe(200);
    expect(await opened.json()).toMatchObject({ success: true, firstName: 'Rosa' });
  });

  test('an erasure takes the participant’s re-sign requests and their mails with it', async () => {
    await signWaiver({ email: 'gone@example.test' });
    const cookie = await signIn(env.smtp);
    publish('2027-02', true);
    await json(desk('/api/records/re-sign', { body: {}, cookie }));
    expect(await env.count('waiver_resign_requests')).toBe(1);
    const fresh = await signIn(env.smtp);
    const erased = await desk('/api/records/erasure', {
      body: { email: 'GONE@example.test', confirm: 'GONE@example.test' },
      cookie: fresh,
    });
    expect(erased.status).toBe(200);
    expect(await env.count('waiver_resign_requests')).toBe(0);
    const { rows } = await env.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM mail_outbox WHERE kind = 'waiver-re-sign'`,
    );
    expect(rows[0]!.n).toBe(0);
  });
});
