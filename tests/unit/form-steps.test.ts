/**
 * The steps every form's function takes (src/server/request/steps.ts), each on its own: what
 * they make of a submission and how they answer. The steps that store (queue, repeated) are
 * tried on a real database in tests/functions/form-steps.test.ts.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { DatabaseUnavailableError } from '../../src/server/platform/db';
import type { Posted } from '../../src/server/request/guard';
import {
  answer,
  fault,
  fingerprintOf,
  parse,
  receive,
  refuse,
  submissionIdFor,
  type NoScript,
} from '../../src/server/request/steps';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const CLIENT = { ip: '192.0.2.7', userAgent: 'test' };
const schema = z.object({
  name: z.string().min(1, 'Please enter your name.'),
  email: z.email('Please enter a valid e-mail address.'),
  submissionId: z.uuid().optional(),
});

describe('parse', () => {
  test('gives the fields as the schema reads them', () => {
    expect(parse(schema, { name: 'Ada', email: 'ada@example.test', extra: 1 })).toEqual({
      ok: true,
      value: { name: 'Ada', email: 'ada@example.test' },
    });
  });

  test('refuses with 422 naming each field to fix', () => {
    const parsed = parse(schema, { name: '', email: 'nope' });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem.status).toBe(422);
    expect(parsed.problem.fieldErrors).toEqual({
      name: 'Please enter your name.',
      email: 'Please enter a valid e-mail address.',
    });
    expect(parsed.problem.error).toContain('name');
  });
});

describe('receive', () => {
  const posted = (format: 'json' | 'form', body: Record<string, unknown>): Posted => ({
    body,
    client: CLIENT,
    format,
  });

  test('keeps the browser’s submission id and judges the time trap by the form’s minimum', () => {
    const id = crypto.randomUUID();
    const fields = { name: 'Ada', email: 'ada@example.test', submissionId: id };
    const received = receive(
      'contact',
      posted('json', { ...fields, website: '', fillTimeMs: 1_000 }),
      fields,
      fields,
      undefined,
    );
    expect(received).toMatchObject({
      submissionId: id,
      spam: 'too-fast',
      timed: true,
      client: CLIENT,
      format: 'json',
    });
    expect(received.fingerprint).toBe(fingerprintOf('contact', fields));
  });

  test('a post without script is untimed, yet not spam for that, and gets an id from its fields', () => {
    const fields = { name: 'Ada', email: 'ada@example.test' };
    const received = receive('contact', posted('form', fields), fields, fields, undefined);
    expect(received.spam).toBeNull();
    expect(received.timed).toBe(false);
    expect(received.submissionId).toBe(submissionIdFor('contact', fields, CLIENT, 'form'));
  });

  test('runs work after the answer through the platform’s waitUntil when there is one', async () => {
    const waited: Promise<unknown>[] = [];
    const fields = { name: 'Ada', email: 'ada@example.test' };
    const received = receive('contact', posted('json', fields), fields, fields, {
      waitUntil: (work) => void waited.push(work),
    });
    const work = Promise.resolve('done');
    await received.later(work);
    expect(waited).toEqual([work]);
  });
});

describe('submissionIdFor', () => {
  const fields = { name: 'Ada' };

  test('a post without script: the same fields, address and day name the same submission, as a UUID', () => {
    const id = submissionIdFor('contact', fields, CLIENT, 'form', '2027-03-01');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(submissionIdFor('contact', fields, CLIENT, 'form', '2027-03-01')).toBe(id);
    for (const other of [
      submissionIdFor('waiver', fields, CLIENT, 'form', '2027-03-01'),
      submissionIdFor('contact', { name: 'Grace' }, CLIENT, 'form', '2027-03-01'),
      submissionIdFor('contact', fields, { ...CLIENT, ip: '192.0.2.8' }, 'form', '2027-03-01'),
      submissionIdFor('contact', fields, CLIENT, 'form', '2027-03-02'),
    ]) {
      expect(other).not.toBe(id);
    }
  });

  test('a script that sent none gets a fresh one each time', () => {
    expect(submissionIdFor('contact', fields, CLIENT, 'json')).not.toBe(
      submissionIdFor('contact', fields, CLIENT, 'json'),
    );
  });
});

describe('fingerprintOf', () => {
  test('is the same for the same fields in any order, whatever the submission id', () => {
    const a = fingerprintOf('contact', { name: 'Ada', email: 'a@x.test', submissionId: '1' });
    const b = fingerprintOf('contact', { email: 'a@x.test', submissionId: '2', name: 'Ada' });
    expect(a).toBe(b);
  });

  test('differs for other fields, another form, or a date at another instant', () => {
    const base = fingerprintOf('contact', { name: 'Ada', at: new Date('2027-03-01T00:00:00Z') });
    expect(
      fingerprintOf('contact', { name: 'Grace', at: new Date('2027-03-01T00:00:00Z') }),
    ).not.toBe(base);
    expect(fingerprintOf('waiver', { name: 'Ada', at: new Date('2027-03-01T00:00:00Z') })).not.toBe(
      base,
    );
    expect(
      fingerprintOf('contact', { name: 'Ada', at: new Date('2027-03-01T00:00:01Z') }),
    ).not.toBe(base);
  });
});

describe('answer', () => {
  const received = (format: 'json' | 'form') =>
    ({ submissionId: 'the-id', format }) as Parameters<typeof answer>[0];

  test('to the script: { success: true, id } with the form’s details, never cached', async () => {
    const response = answer(received('json'), '/sent', { booking: { day: 'Tuesday' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      booking: { day: 'Tuesday' },
      success: true,
      id: 'the-id',
    });
  });

  test('to a browser without script: 303 to the page that says it was sent', () => {
    const response = answer(received('form'), '/contact/sent');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/contact/sent');
  });
});

describe('refuse', () => {
  const noScript: NoScript = {
    formPage: { href: '/contact', label: 'Return to the contact page' },
    labels: { name: 'Name' },
    words: (problem) => ({ title: 'Not sent', text: problem.error, fallback: 'Write to us.' }),
  };
  const request = (type: string) =>
    new Request('http://127.0.0.1/api/x', { method: 'POST', headers: { 'content-type': type } });
  const problem = { status: 429, error: 'Too many.', headers: { 'retry-after': '60' } };

  test('answers the script in JSON with the status and headers of the problem', async () => {
    const response = await refuse(request('application/json'), problem, noScript);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(await response.json()).toEqual({ success: false, error: 'Too many.' });
  });

  test('answers a request of no known format in JSON too', async () => {
    const response = await refuse(request('text/plain'), problem, noScript);
    expect(response.headers.get('content-type')).toMatch(/json/);
  });

  test('sends a browser without script to the page that says why (303), or to the form’s own page when it has one', async () => {
    // The page itself (/refused, rendered by Astro) is tested in tests/functions/form-posts.test.ts.
    const page = await refuse(request('application/x-www-form-urlencoded'), problem, noScript);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toMatch(/^\/refused\?/);
    const own = new Response(null, { status: 307, headers: { location: '/own' } });
    const seen: unknown[] = [];
    const answered = await refuse(request('application/x-www-form-urlencoded'), problem, {
      ...noScript,
      page: (refusal) => {
        seen.push(refusal);
        return own;
      },
    });
    expect(answered).toBe(own);
    expect(seen).toEqual([problem]);
  });
});

describe('fault', () => {
  test('an outage is 503 with Retry-After in the form’s words; the log names no field', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(fault('contact', new DatabaseUnavailableError(new Error('ada@example.test')))).toEqual({
      status: 503,
      error: expect.stringMatching(/\S/),
      headers: { 'retry-after': '30' },
    });
    expect(errors.mock.calls.flat().join(' ')).toBe(
      'contact: the request failed (the database is unavailable)',
    );
  });

  test('anything else is 500, logged by its name only', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const problem = fault('waiver', new TypeError('Okonkwo'));
    expect(problem.status).toBe(500);
    expect(problem.headers).toBeUndefined();
    expect(errors.mock.calls.flat().join(' ')).toBe('waiver: the request failed (TypeError)');
  });
});
