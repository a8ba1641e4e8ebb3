/**
 * The nights the clocks change in the studio's zone (America/Los_Angeles), through the page and
 * the booking function: a window across the night of 1 November 2026 (1:00-1:59 happens twice)
 * and of 14 March 2027 (2:00 becomes 3:00), read from a content folder of the test's own.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import bookConsultation from '../../functions/book-consultation';
import { renderPage } from '../fixtures/on-demand';
import { setClock } from '../../src/server/platform/clock';
import { useFunctionEnv } from '../fixtures/function-env';
import { bookingBody } from '../fixtures/submissions';
import { jsonPost } from './harness';

const env = useFunctionEnv();
const SITE = 'http://127.0.0.1:8888';
let content: string;

beforeAll(async () => {
  content = await mkdtemp(join(tmpdir(), 'consultation-clock-'));
  await cp(resolve(import.meta.dirname, '../../content/site.yaml'), join(content, 'site.yaml'));
  await writeFile(
    join(content, 'consultation.yaml'),
    [
      'lengthMinutes: 15',
      'bufferMinutes: 0',
      'noticeHours: 0',
      'horizonDays: 3',
      'windows:',
      "  - { days: [Su], from: '00:30', to: '03:30' }",
      "  - { days: [Su], from: '09:00', to: '11:30' }",
      'where: studio',
      '',
    ].join('\n'),
  );
  process.env.PAGES_DIR = resolve(import.meta.dirname, '../fixtures/built-pages');
});
afterAll(async () => {
  delete process.env.PAGES_DIR;
  await rm(content, { recursive: true, force: true });
});
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
});

async function page(): Promise<string> {
  vi.stubEnv('CONTENT_DIR', content);
  const answer = await renderPage(new Request(`${SITE}/consultation`));
  expect(answer.status).toBe(200);
  return answer.text();
}

/** Each slot of the page as [posted instant, label shown]. */
const slots = (html: string) =>
  [...html.matchAll(/name="slot" value="([^"]+)"[^>]*>([^<]+)<\/label>/g)].map((m) => [m[1], m[2]]);

describe('the night the clocks go back (1 November 2026)', () => {
  test('the repeated hour is offered twice, each slot saying which it is, and the daytime window keeps its slots', async () => {
    setClock(new Date('2026-10-31T12:00:00Z'));
    const night = slots(await page()).filter(([start]) => start.startsWith('2026-11-01'));
    expect(night.slice(0, 16)).toEqual([
      ['2026-11-01T07:30:00Z', '12:30 AM'],
      ['2026-11-01T07:45:00Z', '12:45 AM'],
      ['2026-11-01T08:00:00Z', '1:00 AM PDT'],
      ['2026-11-01T08:15:00Z', '1:15 AM PDT'],
      ['2026-11-01T08:30:00Z', '1:30 AM PDT'],
      ['2026-11-01T08:45:00Z', '1:45 AM PDT'],
      ['2026-11-01T09:00:00Z', '1:00 AM PST'],
      ['2026-11-01T09:15:00Z', '1:15 AM PST'],
      ['2026-11-01T09:30:00Z', '1:30 AM PST'],
      ['2026-11-01T09:45:00Z', '1:45 AM PST'],
      ['2026-11-01T10:00:00Z', '2:00 AM'],
      ['2026-11-01T10:15:00Z', '2:15 AM'],
      ['2026-11-01T10:30:00Z', '2:30 AM'],
      ['2026-11-01T10:45:00Z', '2:45 AM'],
      ['2026-11-01T11:00:00Z', '3:00 AM'],
      ['2026-11-01T11:15:00Z', '3:15 AM'],
    ]);
    // 9:00 to 11:15 PST: ten slots, as on any Sunday.
    expect(night.slice(16).map(([, label]) => label)).toHaveLength(10);
  });

  test('booking the second 1:30 AM stores that instant, and its invite and mail say 1:30 AM PST', async () => {
    setClock(new Date('2026-10-31T12:00:00Z'));
    vi.stubEnv('CONTENT_DIR', content);
    const answer = await bookConsultation(
      jsonPost(`${SITE}/api/consultation/book`, bookingBody('2026-11-01T09:30:00Z')),
    );
    expect(answer.status).toBe(200);
    expect((await answer.json()).booking).toMatchObject({
      day: 'Sunday, November 1, 2026',
      time: '1:30 – 1:45 AM PST',
    });
    await env.smtp.waitForMails(2);
    const visitor = env.smtp.mails.find((mail) => mail.envelope.to[0] === 'grace@example.test')!;
    expect(visitor.subject).toBe('Your consultation on Sunday, November 1 at 1:30 AM PST');
    const part = visitor.attachments.find((a) => a.contentType === 'text/calendar')!;
    // Read back by node-ical in a zone far from the studio's: the instant is what counts.
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata';
    try {
      const event = Object.values(ical.sync.parseICS(part.content.toString())).find(
        (c): c is VEvent => c?.type === 'VEVENT',
      )!;
      expect(event.start.toISOString()).toBe('2026-11-01T09:30:00.000Z');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('the night the clocks go forward (14 March 2027)', () => {
  test('no slot falls in the skipped hour; the window loses it and the daytime one keeps its slots', async () => {
    setClock(new Date('2027-03-13T12:00:00Z'));
    const night = slots(await page()).filter(([start]) => start.startsWith('2027-03-14'));
    expect(night.slice(0, 8)).toEqual([
      ['2027-03-14T08:30:00Z', '12:30 AM'],
      ['2027-03-14T08:45:00Z', '12:45 AM'],
      ['2027-03-14T09:00:00Z', '1:00 AM'],
      ['2027-03-14T09:15:00Z', '1:15 AM'],
      ['2027-03-14T09:30:00Z', '1:30 AM'],
      ['2027-03-14T09:45:00Z', '1:45 AM'],
      ['2027-03-14T10:00:00Z', '3:00 AM'],
      ['2027-03-14T10:15:00Z', '3:15 AM'],
    ]);
    expect(night.slice(8).map(([, label]) => label)).toEqual([
      '9:00 AM',
      '9:15 AM',
      '9:30 AM',
      '9:45 AM',
      '10:00 AM',
      '10:15 AM',
      '10:30 AM',
      '10:45 AM',
      '11:00 AM',
      '11:15 AM',
    ]);
    expect(night.slice(8)[0][0]).toBe('2027-03-14T16:00:00Z');
  });
});
