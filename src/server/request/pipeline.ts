/**
 * The one way a form's submission travels through a function:
 *
 *   guard → validate → the form's own checks → spam verdict → store the row and queue its mails
 *   in one transaction → answer → deliver the mails (after the answer)
 *
 * The form may come as JSON from its script or as a plain HTML form post from a browser without
 * one: the same guards, caps, checks, spam verdict, idempotency and storage; only the answer
 * differs (a `303` to a page with the product's words, or a page saying what to fix).
 *
 * A form says only what is particular to it (`FormFunction`); everything else is here, once. A
 * form may also say which mails a stored row owes (some due later: a reminder), what its answer
 * carries besides the id (a booking's time), how a refusal of its own reads without script (a
 * taken slot's nearest free ones), and what a failed insert means (a slot taken meanwhile).
 * Stored means it reaches the studio: the answer goes out as soon as the transaction commits,
 * and the mails are sent after it (Netlify's `context.waitUntil`), or later by the outbox's
 * retry if this instance stops first. Spam is stored, marked, answered like anything else and
 * never mailed. A repeated submission id stores and sends nothing more and answers like the first,
 * when it is the same request (its fields' keyed hash, `request_sha256`, is the stored row's);
 * another request under a known id is refused (409) and told nothing of the row.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { TIMER_FIELD, spamReason, type SpamReason } from '../../shared/anti-spam';
import { CHECK_FIELDS, OTHER_REQUEST, refusal, type FormName } from '../../shared/form-answer';
import { describeProblems, fieldErrors } from '../../shared/fields';
import { ok, type Result } from '../../shared/result';
import { requestFingerprint } from '../platform/crypto';
import { DatabaseUnavailableError, transaction, type Queryable } from '../platform/db';
import { readSetting, type RateLimitSetting } from '../platform/settings';
import type { EnqueueOptions, Outbox } from '../platform/outbox';
import { siteOrigin } from '../platform/hosting';
import { refused, stored, type Problem } from './responses';
import {
  afterAnswer,
  guardPost,
  postFormat,
  type Client,
  type FunctionContext,
  type PostFormat,
} from './guard';
import { problemPage, seeOther, type ProblemWords } from './pages';

/** What the pipeline knows about a submission beyond its fields. */
export interface Received {
  /** The browser's submission id, or one made here when it sent none. */
  submissionId: string;
  /** What the submission said: a keyed hash of its fields, stored as the row's `request_sha256`. */
  fingerprint: string;
  spam: SpamReason | null;
  /** The time trap ran (a post without script has no clock: it is delivered, unverified). */
  timed: boolean;
  client: Client;
  format: PostFormat;
  /** The site's address the links in the submission's mail point to (siteOrigin(), platform/hosting.ts). */
  origin: string;
  /** Runs work after the answer where the platform allows it (Netlify's waitUntil), else now. */
  later: (work: Promise<unknown>) => Promise<void>;
}

/** One mail a stored submission owes: its kind, the row it is composed from, and when it is due. */
export interface QueuedMail<K extends string> extends EnqueueOptions {
  kind: K;
  ref: string;
}

/** What a stored submission's answer carries besides its id, and where a post without script goes. */
export interface StoredAnswer {
  details?: Record<string, unknown>;
  location?: string;
}

export interface FormFunction<S extends z.ZodType<{ submissionId?: string }>, K extends string, E> {
  form: FormName;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** The setting of the form's rate limit (e.g. `CONTACT_RATE_LIMIT`). */
  rateLimit: RateLimitSetting;
  /** A device the rate limit does not count (the waiver's kiosk). */
  exemptFromRateLimit?: (req: Request) => Promise<boolean>;
  /** The time trap: nobody fills in this form faster (milliseconds). */
  minFillMs: number;
  schema: S;
  /** Where the form's fields are in a JSON body (the waiver nests them in `waiver`). */
  fields?: (body: Record<string, unknown>) => unknown;
  /** The schema's input from a plain form post's fields (all text; a ticked box is `on`). */
  fromForm?: (body: Record<string, unknown>) => unknown;
  /** The answers to a post without script. */
  noScript: {
    /** The static page with the product's success words. */
    sentPage: string;
    /** The form's own page, for a fresh start. */
    formPage: { href: string; label: string };
    labels: Record<string, string>;
    /** What the page says for a refusal. */
    words: (problem: Problem) => ProblemWords;
    /** A page of the form's own for some refusals (with what was typed); else the problem page. */
    page?: (
      problem: Problem,
      input: Record<string, unknown>,
      req: Request,
    ) => Promise<Response | undefined> | undefined;
  };
  /** Checks the schema cannot make; what they find out is handed on to `insert`. */
  check?: (
    data: z.output<S>,
    format: PostFormat,
    received: Received,
  ) => Result<E, Problem> | Promise<Result<E, Problem>>;
  /** Stores the row in the open transaction: its id, or `undefined` for a known submission id. */
  insert: (
    tx: Queryable,
    data: z.output<S>,
    received: Received,
    checked: E,
  ) => Promise<string | undefined>;
  /**
   * The table whose rows hold `submission_id` and `request_sha256`: a submission id already
   * there is answered like the first only when its fingerprint is the same.
   */
  repeatsIn?: 'contact_messages' | 'waivers' | 'consultation_bookings';
  /** The mails a stored (not spam) submission owes, composed later from the row's id... */
  mails: readonly K[];
  /**
   * Why one of them is to be held back rather than sent (e.g. `recipient-limit`), decided in the
   * open transaction; `undefined` to send it. A held-back mail is recorded in the outbox as such.
   */
  holdBack?: (tx: Queryable, kind: K, data: z.output<S>) => Promise<string | undefined>;
  /** ...by the outbox they are queued in (the site's: src/server/mail-kinds.ts). */
  outbox: Pick<Outbox<K>, 'enqueue' | 'deliverNow'>;
  /**
   * Each mail of `mails` with its own ref and due time (a booking's reminder, due a day before),
   * instead of every kind composed from the row's id and due at once.
   */
  queue?: (ref: string, data: z.output<S>, checked: E) => QueuedMail<K>[];
  /**
   * What a failed transaction means, when it is not an outage (a constraint the insert ran into):
   * the problem to answer, or `undefined` for a fault (500).
   */
  conflict?: (error: unknown, data: z.output<S>) => Promise<Problem | undefined>;
  /**
   * The answer to a stored submission (`ref`, or `undefined` for a repeated submission id):
   * fields beside `{ success: true, id }`, and the page a post without script is sent to.
   */
  answer?: (
    ref: string | undefined,
    data: z.output<S>,
    received: Received,
    checked: E,
  ) => Promise<StoredAnswer>;
}

export function formFunction<
  S extends z.ZodType<{ submissionId?: string }>,
  K extends string,
  E = undefined,
>(spec: FormFunction<S, K, E>) {
  const { form } = spec;
  const handler = async (req: Request, context?: FunctionContext): Promise<Response> => {
    try {
      return await handle(req, context);
    } catch (error) {
      // Whatever broke (a content file missing from the bundle, a bug), the visitor gets an
      // answer in kind, and the log its name and nothing of the form.
      const outage = error instanceof DatabaseUnavailableError;
      console.error(
        `${form}: the request failed (${outage ? 'the database is unavailable' : ((error as Error)?.name ?? 'unknown error')})`,
      );
      const format = postFormat(req) ?? 'json';
      const status = outage ? 503 : 500;
      return answer(req, format, {
        status,
        error: refusal(form, status) ?? 'Please try again.',
        headers: outage ? { 'retry-after': '30' } : undefined,
      });
    }
  };

  const handle = async (req: Request, context?: FunctionContext): Promise<Response> => {
    const rateLimit = readSetting(spec.rateLimit);
    const guarded = await guardPost(req, context, {
      form,
      maxBytes: spec.maxBytes,
      rateLimit,
      exempt: spec.exemptFromRateLimit,
    });
    if (!guarded.ok) return answer(req, postFormat(req) ?? 'json', guarded.problem);
    const { body, client, format } = guarded.value;
    const fail = (problem: Problem) => answer(req, format, problem, body);

    const input =
      format === 'form' ? (spec.fromForm?.(body) ?? body) : (spec.fields?.(body) ?? body);
    const parsed = spec.schema.safeParse(input);
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error);
      const error = describeProblems(errors) || parsed.error.issues[0]?.message || CHECK_FIELDS;
      return fail({ status: 422, error, fieldErrors: errors });
    }
    const data = parsed.data;

    // A browser without script keeps no time: its post is not taken for a bot for that alone.
    const received: Received = {
      submissionId: data.submissionId ?? submissionIdFor(form, input, client, format),
      fingerprint: fingerprintOf(form, data),
      spam: spamReason(body, spec.minFillMs, { timerRequired: format === 'json' }),
      timed: typeof body[TIMER_FIELD] === 'number',
      client,
      format,
      origin: siteOrigin(),
      later: (work) => afterAnswer(context, work),
    };
    const checked = spec.check ? await spec.check(data, format, received) : ok(undefined as E);
    if (!checked.ok) return fail(checked.problem);
    let queued: string[];
    let storedRef: string | undefined;
    let otherRequest = false;
    try {
      queued = await transaction(async (tx) => {
        const ref = await spec.insert(tx, data, received, checked.value);
        storedRef = ref;
        if (ref === undefined && spec.repeatsIn) {
          otherRequest = !(await isSameRequest(tx, spec.repeatsIn, received));
        }
        if (ref === undefined || received.spam) {
          if (ref !== undefined) {
            console.info(`${form} ${ref} kept as spam (${received.spam}) for review, not e-mailed`);
          }
          return [];
        }
        const mails: QueuedMail<K>[] = spec.queue
          ? spec.queue(ref, data, checked.value)
          : spec.mails.map((kind) => ({ kind, ref }));
        const ids: string[] = [];
        for (const { kind, ref: about, ...options } of mails) {
          const skipped = await spec.holdBack?.(tx, kind, data);
          const id = await spec.outbox.enqueue(tx, kind, about, { ...options, skipped });
          // A mail held back is never sent; one due later goes when its time comes.
          if (id && !skipped && !options.notBefore) ids.push(id);
        }
        return ids;
      });
    } catch (error) {
      const outage = error instanceof DatabaseUnavailableError;
      const conflict = outage ? undefined : await spec.conflict?.(error, data);
      if (conflict) return fail(conflict);
      console.error(
        `${form}: nothing stored (${outage ? 'the database is unavailable' : (error as Error)?.name})`,
      );
      const status = outage ? 503 : 500;
      return fail({
        status,
        error: refusal(form, status) ?? 'Please try again.',
        headers: outage ? { 'retry-after': '30' } : undefined,
      });
    }

    if (otherRequest) return fail({ status: 409, error: OTHER_REQUEST });
    // After the answer where the platform allows it; the outbox retries what this misses.
    if (queued.length > 0) await afterAnswer(context, spec.outbox.deliverNow(queued));
    const extra = spec.answer ? await spec.answer(storedRef, data, received, checked.value) : {};
    if (format === 'form') return seeOther(extra.location ?? spec.noScript.sentPage);
    return stored(received.submissionId, extra.details);
  };

  /** A refusal as JSON for the form's script, or as a page for a browser without one. */
  async function answer(
    req: Request,
    format: PostFormat,
    problem: Problem,
    input: Record<string, unknown> = {},
  ): Promise<Response> {
    if (format === 'json') return refused(problem);
    const { noScript } = spec;
    const own = await noScript.page?.(problem, input, req);
    if (own) return own;
    return problemPage({
      problem,
      words: noScript.words(problem),
      labels: noScript.labels,
      formPage: noScript.formPage,
    });
  }
  // What the function may queue, readable by the test that every such kind has a composer.
  return Object.assign(handler, { form, mails: spec.mails });
}

/**
 * Whether the row stored under `received`'s submission id said the same (a row stored before
 * fingerprints has none, and is never answered to a repeat).
 */
async function isSameRequest(tx: Queryable, table: string, received: Received): Promise<boolean> {
  const { rows } = await tx.query(`SELECT request_sha256 FROM ${table} WHERE submission_id = $1`, [
    received.submissionId,
  ]);
  const stored = (rows[0] as { request_sha256: string | null } | undefined)?.request_sha256;
  return stored === received.fingerprint;
}

/** The keyed hash of a submission's fields as the schema read them (its id aside), keys sorted. */
export function fingerprintOf(form: FormName, data: object): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value instanceof Date) return value.toISOString();
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key, field]) => key !== 'submissionId' && field !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([key, field]) => [key, canonical(field)]),
      );
    }
    return value;
  };
  return requestFingerprint(JSON.stringify([form, canonical(data)]));
}

/**
 * The submission id of a post that brought none. A script always sends one; a plain form post
 * cannot make one, so the same fields sent again from the same address on the same day (the
 * browser's Back and Send again, a double click) name the same submission and store nothing more.
 */
function submissionIdFor(
  form: FormName,
  fields: unknown,
  client: Client,
  format: PostFormat,
): string {
  if (format === 'json') return randomUUID();
  const day = new Date().toISOString().slice(0, 10);
  const hex = createHash('sha256')
    .update(JSON.stringify([form, fields, client.ip, day]))
    .digest('hex');
  // Laid out as a UUID (version 8: custom, RFC 9562), which the tables store.
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}`,
    hex.slice(20, 32),
  ].join('-');
}
