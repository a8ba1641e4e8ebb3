/**
 * The booking's own steps (src/server/booking/book.ts) and the form steps that store
 * (src/server/request/steps.ts `queue`, `repeated`), each called on its own against a real
 * PostgreSQL server, with the studio's clock set by the test.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { bookingSchema, type BookingRequest } from '../../src/shared/booking/form';
import { contactSchema } from '../../src/shared/contact';
import {
  REPEAT_PAGE,
  answerBooking,
  checkBooking,
  findRepeat,
  storeBooking,
  type Booked,
} from '../../src/server/booking/book';
import { loadBooking, manageToken } from '../../src/server/booking/store';
import { storeMessage } from '../../src/server/contact/store';
import { outbox } from '../../src/server/mail-kinds';
import { setClock } from '../../src/server/platform/clock';
import { transaction } from '../../src/server/platform/db';
import type { PostFormat } from '../../src/server/request/guard';
import { queue, receive, repeated, type Received } from '../../src/server/request/steps';
import { useFunctionEnv } from '../fixtures/function-env';
import { PERSON_SPAM_CHECKS, bookingFields, contactFields } from '../fixtures/submissions';

const env = useFunctionEnv();
const SITE = 'http://127.0.0.1:8888';

// Monday 1 March 2027, 03:59 in Portland: Tuesday's first slot is at 09:00 (17:00 UTC).
const NOW = new Date('2027-03-01T11:59:00Z');
const TUESDAY_9 = '2027-03-02T17:00:00Z';
const TUESDAY_10 = '2027-03-02T18:00:00Z';

beforeAll(() => {
  process.env.SITE_URL = SITE;
  process.env.CONTACT_TO = 'studio-inbox@example.test';
});
afterAll(() => {
  delete process.env.SITE_URL;
  delete process.env.CONTACT_TO;
});
beforeEach(() => setClock(NOW));
afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** A booking request as the guard and parse steps hand it on, and what `receive` makes of it. */
function submission(
  slot: string,
  overrides: Record<string, unknown> = {},
  { format = 'json', body = PERSON_SPAM_CHECKS as Record<string, unknown> } = {} as {
    format?: PostFormat;
    body?: Record<string, unknown>;
  },
): { request: BookingRequest; received: Received } {
  const fields = { submissionId: crypto.randomUUID(), ...bookingFields(slot, overrides) };
  const request = bookingSchema.parse(fields);
  const posted = {
    body: { ...fields, ...body },
    client: { ip: '192.0.2.1', userAgent: null },
    format,
  };
  return { request, received: receive('booking', posted, fields, request, undefined) };
}

async function book(slot: string, overrides: Record<string, unknown> = {}) {
  const { request, received } = submission(slot, overrides);
  const checked = await checkBooking(request, received);
  if (!checked.ok) throw new Error(checked.problem.error);
  const stored = await storeBooking(outbox, request, received, checked.value);
  if (!stored.ok) throw new Error(stored.problem.error);
  return { request, received, checked: checked.value, booked: stored.value };
}

const newBooking = (booked: Booked) => {
  if (booked.repeat) throw new Error('a repeat, not a new booking');
  return booked;
};

describe('checkBooking', () => {
  test('a slot on the page is the slot as it will be held: the consultation and its buffer', async () => {
    const { request, received } = submission(TUESDAY_9);
    expect(await checkBooking(request, received)).toEqual({
      ok: true,
      value: {
        start: new Date(TUESDAY_9),
        end: new Date('2027-03-02T17:15:00Z'),
        heldEnd: new Date('2027-03-02T17:30:00Z'),
      },
    });
  });

  test('a time off the grid is 422 naming the slot; a taken one 409 with the nearest free ones', async () => {
    const off = submission('2027-03-02T17:07:00Z');
    const refused = await checkBooking(off.request, off.received);
    expect(refused).toMatchObject({
      ok: false,
      problem: { status: 422, fieldErrors: { slot: expect.any(String) } },
    });
    await book(TUESDAY_9);
    const taken = submission(TUESDAY_9, { email: 'someone@example.test' });
    const result = await checkBooking(taken.request, taken.received);
    expect(result).toMatchObject({ ok: false, problem: { status: 409 } });
    if (result.ok) return;
    expect(result.problem.details?.nearest).toEqual(
      expect.arrayContaining([expect.objectContaining({ start: expect.any(String) })]),
    );
  });

  test('an address past its consultations to come is refused before anything is stored', async () => {
    vi.stubEnv('CONSULTATION_UPCOMING_PER_EMAIL', '1');
    await book(TUESDAY_9);
    const again = submission(TUESDAY_10);
    const refused = await checkBooking(again.request, again.received);
    expect(refused).toMatchObject({ ok: false, problem: { status: 409 } });
    expect(await env.count('consultation_bookings')).toBe(1);
  });
});

describe('storeBooking', () => {
  test('stores the row and queues its mails in one transaction, and answers with the token it made, reading nothing back', async () => {
    const { booked } = await book(TUESDAY_9);
    const stored = newBooking(booked);
    // The invites now; the reminder is queued, due a day before, and not sent now.
    expect(stored.queued).toHaveLength(2);
    const outboxRows = await env.db.query<{ kind: string; ref: string }>(
      'SELECT kind, ref FROM mail_outbox ORDER BY id',
    );
    expect(outboxRows.rows.map((row) => row.kind)).toEqual([
      'booking-visitor',
      'booking-studio',
      'booking-reminder',
    ]);
    // The token it answers with is the one the row keeps, sealed and hashed.
    expect(manageToken((await loadBooking(stored.booking.id))!)).toBe(stored.token);
    expect(stored.booking.start).toEqual(new Date(TUESDAY_9));
  });

  test('spam is stored and holds nothing, and queues no mail', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const { request, received } = submission(
      TUESDAY_9,
      {},
      { body: { website: 'spam', fillTimeMs: 20_000 } },
    );
    const checked = await checkBooking(request, received);
    const stored = await storeBooking(
      outbox,
      request,
      received,
      checked.ok ? checked.value : (undefined as never),
    );
    expect(stored).toMatchObject({ ok: true, value: { repeat: false, queued: [] } });
    expect(await env.count('mail_outbox')).toBe(0);
  });

  test('the same submission stored meanwhile (sent twice at once) is its repeat, even at the cap, and stores nothing more', async () => {
    vi.stubEnv('CONSULTATION_UPCOMING_PER_EMAIL', '1');
    const first = await book(TUESDAY_9);
    // The second send passed its checks before the first was stored.
    const again = await storeBooking(outbox, first.request, first.received, first.checked);
    expect(again).toMatchObject({
      ok: true,
      value: { repeat: true, booking: { id: newBooking(first.booked).booking.id } },
    });
    expect(await env.count('consultation_bookings')).toBe(1);
    expect(await env.count('mail_outbox')).toBe(3);
  });

  test('a slot the database refuses (the race lost) is 409 with the nearest free ones', async () => {
    const first = await book(TUESDAY_9);
    const other = submission(TUESDAY_9, { email: 'other@example.test' });
    const lost = await storeBooking(outbox, other.request, other.received, first.checked);
    expect(lost).toMatchObject({
      ok: false,
      problem: { status: 409, details: { nearest: expect.any(Array) } },
    });
    expect(await env.count('consultation_bookings')).toBe(1);
  });
});

describe('findRepeat', () => {
  test('a new submission id is none; a known one, sent alike, is its booking; sent otherwise, 409', async () => {
    const { request, received, booked } = await book(TUESDAY_9);
    expect(await findRepeat(submission(TUESDAY_9).received)).toEqual({
      ok: true,
      value: undefined,
    });
    expect(await findRepeat(received)).toMatchObject({
      ok: true,
      value: { repeat: true, booking: { id: newBooking(booked).booking.id } },
    });
    const other = submission(TUESDAY_9, { submissionId: request.submissionId, name: 'Mallory' });
    expect(await findRepeat(other.received)).toMatchObject({ ok: false, problem: { status: 409 } });
  });
});

describe('answerBooking', () => {
  test('the script gets when and where and the manage link, alike for the booking and its repeat', async () => {
    const { received, booked } = await book(TUESDAY_9);
    const first = await answerBooking(booked, received).json();
    expect(first).toMatchObject({
      success: true,
      id: received.submissionId,
      booking: { start: '2027-03-02T17:00:00.000Z', day: 'Tuesday, March 2, 2027' },
    });
    expect(first.booking.manage).toBe(`/consultation/manage?token=${newBooking(booked).token}`);
    const repeat = await findRepeat(received);
    if (!repeat.ok || !repeat.value) throw new Error('no repeat');
    expect(await answerBooking(repeat.value, received).json()).toEqual(first);
  });

  test('a browser without script is sent to the booking’s page; its repeat only to a page saying it was sent', async () => {
    const { received, booked } = await book(TUESDAY_9);
    const form = { ...received, format: 'form' as const };
    const answer = answerBooking(booked, form);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(
      `/consultation/manage?token=${newBooking(booked).token}&booked=1`,
    );
    const repeat = await findRepeat(form);
    if (!repeat.ok || !repeat.value) throw new Error('no repeat');
    expect(answerBooking(repeat.value, form).headers.get('location')).toBe(REPEAT_PAGE);
  });
});

describe('the form steps that store', () => {
  test('queue: a mail held back or due later is queued but not sent now', async () => {
    const ids = await transaction((tx) =>
      queue(tx, outbox, [
        { kind: 'contact', ref: '1' },
        { kind: 'waiver-participant', ref: crypto.randomUUID(), skipped: 'recipient-limit' },
        {
          kind: 'booking-reminder',
          ref: `${crypto.randomUUID()}:0`,
          notBefore: new Date('2030-01-01'),
        },
      ]),
    );
    expect(ids).toHaveLength(1);
    expect(await env.count('mail_outbox')).toBe(3);
  });

  test('repeated: a known submission id sent alike queues nothing more; sent otherwise, 409', async () => {
    const fields = contactSchema.parse({ submissionId: crypto.randomUUID(), ...contactFields() });
    const posted = {
      body: { ...fields, ...PERSON_SPAM_CHECKS },
      client: { ip: '192.0.2.1', userAgent: null },
      format: 'json' as const,
    };
    const received = receive('contact', posted, fields, fields, undefined);
    expect((await storeMessage(outbox, fields, received)).ok).toBe(true);
    expect(await transaction((tx) => repeated(tx, 'contact_messages', received))).toEqual({
      ok: true,
      value: [],
    });
    const other = receive('contact', posted, fields, { ...fields, message: 'Another' }, undefined);
    expect(await transaction((tx) => repeated(tx, 'contact_messages', other))).toMatchObject({
      ok: false,
      problem: { status: 409 },
    });
  });
});
