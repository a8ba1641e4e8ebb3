/**
 * Hostile input, generated: whatever a client throws at a form's function, the answer is never
 * a 5xx, is JSON (or, to a plain form post, a page), and invalid input leaves nothing stored and
 * nothing sent.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import sendEmail from '../../functions/send-email';
import submitWaiver from '../../functions/submit-waiver';
import { contactSchema } from '../../src/shared/contact';
import { WAIVER_FIELD_ORDER } from '../../src/shared/waiver';
import { useFunctionEnv } from '../fixtures/function-env';
import { waiverFields } from '../fixtures/submissions';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
// Each property runs its function dozens of times on a real database and mail server: on a
// machine whose cores are busy that outlasts the project's 30 s per test, and a test cut off
// keeps running into the next one's counts. Time enough for a crowded machine.
const PROPERTY_TIMEOUT_MS = 300_000;

// A database of this file's own and the SMTP server, both emptied before each test.
const env = useFunctionEnv();

/** Whether a form post was sent on to the page that says why it was refused. */
const refusedTo = (response: Response) =>
  (response.headers.get('location') ?? '').startsWith('/refused?');

beforeAll(() => {
  process.env.CONTACT_TO = 'studio-inbox@example.test';
  // The limit has its own tests; here it would only turn every later run into a 429.
  process.env.CONTACT_RATE_LIMIT = '1000000/1h';
  process.env.WAIVER_RATE_LIMIT = '1000000/1h';
});

afterAll(() => {
  delete process.env.CONTACT_RATE_LIMIT;
  delete process.env.WAIVER_RATE_LIMIT;
});

const FIELDS = ['name', 'email', 'service', 'message', 'website', 'fillTimeMs'] as const;

/** Strings of any kind: unicode, lone surrogates, control characters, long runs. */
const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.constantFrom('', ' ', '\u0000', '\r\nBcc: x@example.test', '🧘‍♀️', '\ud800', '<script>'),
  fc.nat({ max: 40_000 }).map((n) => 'x'.repeat(n)),
);

/** Nested arrays and objects as JSON text, `max` levels deep at most. */
const deep = (max: number) =>
  fc
    .tuple(fc.nat({ max }), fc.boolean())
    .map(([depth, asObject]) =>
      asObject
        ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
        : `${'['.repeat(depth)}0${']'.repeat(depth)}`,
    );

/** A field's value: right or wrong type, anything JSON can carry. */
const anyValue = fc.oneof(
  anyString,
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant(undefined),
  deep(1_000).map((text) => JSON.parse(text) as unknown),
);

/** Objects that look like the form, with each field present or not, of any type. */
const formLike = fc.record(Object.fromEntries(FIELDS.map((field) => [field, anyValue])), {
  requiredKeys: [],
});

/** A nearly valid form: right shape, arbitrary text in the fields. */
const nearlyValid = fc.record({
  name: anyString,
  email: fc.oneof(fc.emailAddress(), anyString),
  service: fc.oneof(fc.constantFrom('', 'consultation', 'other'), anyString),
  message: anyString,
  website: fc.constantFrom('', undefined),
  fillTimeMs: fc.constantFrom(10_000, 0, undefined),
});

/** Raw bodies: JSON of anything, broken JSON, random bytes, deep nesting. */
const body = fc.oneof(
  formLike.map((value) => JSON.stringify(value)),
  nearlyValid.map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
  anyString,
  deep(30_000),
  fc.uint8Array({ maxLength: 2_000 }),
);

const contentType = fc.oneof(
  fc.constant('application/json'),
  fc.constant('application/json; charset=utf-8'),
  fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', '', 'APPLICATION/JSON'),
  fc.string({ maxLength: 40 }),
);

const isFormPost = (headers: Headers) =>
  headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ===
  'application/x-www-form-urlencoded';

describe('the contact function under arbitrary input', () => {
  test(
    'never answers 5xx, answers in kind, and stores and sends only valid messages',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          body,
          contentType,
          fc.constantFrom('POST', 'POST', 'PUT'),
          async (raw, type, method) => {
            const before = await env.count('contact_messages');
            const mailsBefore = env.smtp.mails.length;
            const headers = new Headers({ origin: 'http://127.0.0.1:8888' });
            // A header value cannot hold every string; such a request could not be sent at all.
            try {
              headers.set('content-type', type);
            } catch {
              return;
            }
            const response = await sendEmail(
              new Request('http://127.0.0.1:8888/api/send-email', { method, headers, body: raw }),
            );
            expect(response.status).toBeLessThan(500);
            if (isFormPost(headers)) {
              // A plain form post is answered with pages: a 303 to the sent page once stored, else
              // a 303 to the page saying why (/refused).
              expect(response.status).toBe(303);
              if (refusedTo(response)) expect(await env.count('contact_messages')).toBe(before);
              else expect(await env.count('contact_messages')).toBe(before + 1);
              return;
            }
            expect(response.headers.get('content-type')).toMatch(/^application\/json/);
            const answer = (await response.json()) as { success: boolean; error?: unknown };

            if (response.status === 200) {
              expect(answer).toEqual({ success: true, id: expect.any(String) });
              const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
              expect(contactSchema.safeParse(JSON.parse(text)).success).toBe(true);
              expect(await env.count('contact_messages')).toBe(before + 1);
            } else {
              expect(answer.success).toBe(false);
              expect(typeof answer.error).toBe('string');
              expect(await env.count('contact_messages')).toBe(before);
              expect(env.smtp.mails.length).toBe(mailsBefore);
            }
          },
        ),
        {
          numRuns: RUNS,
          // Found by an earlier run: a minimal valid message from a person (kept as a regression).
          examples: [
            [
              '{"name":"!","email":"a@a.aa","service":"","message":"x","website":"","fillTimeMs":10000}',
              'application/json',
              'POST',
            ],
          ],
        },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  test(
    'stores and mails any valid message once, its unicode text intact',
    async () => {
      const text = (max: number) =>
        fc
          .string({ unit: 'grapheme', minLength: 1, maxLength: max })
          .filter((value) => value.trim().length > 0);
      const validForm = fc.record({
        name: text(100),
        email: fc.emailAddress().filter((email) => email.length <= 254),
        service: fc.constantFrom('', 'private-session', 'prenatal', 'other'),
        message: text(600),
      });
      await fc.assert(
        fc.asyncProperty(validForm, async (form) => {
          fc.pre(contactSchema.safeParse(form).success);
          await env.clear();
          env.smtp.mails.length = 0;
          const response = await sendEmail(
            new Request('http://127.0.0.1:8888/api/send-email', {
              method: 'POST',
              headers: { origin: 'http://127.0.0.1:8888', 'content-type': 'application/json' },
              body: JSON.stringify({ ...form, website: '', fillTimeMs: 8_000 }),
            }),
          );
          expect(response.status).toBe(200);
          const { rows } = await env.db.query<{ message: string }>(
            'SELECT message FROM contact_messages',
          );
          expect(rows).toEqual([{ message: form.message.trim() }]);
          expect(env.smtp.mails).toHaveLength(1);
        }),
        { numRuns: Math.ceil(RUNS / 3) },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe('the waiver function under arbitrary input', () => {
  const FIELDS_OF_WAIVER = [...WAIVER_FIELD_ORDER];
  const good: Record<string, unknown> = waiverFields({
    medicalConditions: '',
    medications: '',
    agreedToPhotos: false,
  });

  /** A waiver with some fields replaced by anything at all. */
  const mangled = fc
    .record(Object.fromEntries(FIELDS_OF_WAIVER.map((field) => [field, anyValue])), {
      requiredKeys: [],
    })
    .map((changes) => ({ waiver: { ...good, ...changes }, website: '', fillTimeMs: 9_000 }));

  const waiverBody = fc.oneof(
    mangled.map((value) => JSON.stringify(value)),
    formLike.map((value) => JSON.stringify({ waiver: value })),
    fc.jsonValue().map((value) => JSON.stringify({ waiver: value })),
    fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
    anyString,
    deep(30_000),
    fc.uint8Array({ maxLength: 2_000 }),
  );

  test(
    'never answers 5xx, answers in kind, and stores nothing it refuses',
    async () => {
      await fc.assert(
        fc.asyncProperty(waiverBody, contentType, async (raw, type) => {
          const before = await env.count('waivers');
          const textsBefore = await env.count('waiver_texts');
          const mailsBefore = env.smtp.mails.length;
          const headers = new Headers({ origin: 'http://127.0.0.1:8888' });
          try {
            headers.set('content-type', type);
          } catch {
            return;
          }
          const response = await submitWaiver(
            new Request('http://127.0.0.1:8888/api/submit-waiver', {
              method: 'POST',
              headers,
              body: raw,
            }),
          );
          expect(response.status).toBeLessThan(500);
          if (isFormPost(headers)) {
            expect(response.status).toBe(303);
            if (refusedTo(response)) expect(await env.count('waivers')).toBe(before);
            else expect(await env.count('waivers')).toBe(before + 1);
            return;
          }
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          const answer = (await response.json()) as { success: boolean; error?: unknown };
          if (response.status === 200) {
            expect(answer.success).toBe(true);
            expect(await env.count('waivers')).toBe(before + 1);
          } else {
            expect(answer.success).toBe(false);
            expect(typeof answer.error).toBe('string');
            expect(await env.count('waivers')).toBe(before);
            expect(await env.count('waiver_texts')).toBe(textsBefore);
            expect(env.smtp.mails.length).toBe(mailsBefore);
          }
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
