/**
 * The steps every form's function takes, each called by the function itself, in this order
 * (`functions/send-email.ts` is the shortest to read):
 *
 *   guard (guard.ts `guardPost`) → parse → receive → the form's own checks → store the row and
 *   queue its mails in one transaction (the form's own step, with `queue`, `repeated` and
 *   `keptAsSpam` from here) → deliver the mails after the answer → answer, or refuse
 *
 * The form may come as JSON from its script or as a plain HTML form post from a browser without
 * one: the same guards, caps, checks, spam verdict, idempotency and storage; only the answer
 * differs (a `303` to a page with the product's words, or to the page saying what to fix). Stored
 * means it reaches the studio: the answer goes out as soon as the transaction commits, and the
 * mails are sent after it (Netlify's `context.waitUntil`), or later by the outbox's retry if
 * this instance stops first. Spam is stored, marked, answered like anything else and never
 * mailed. A repeated submission id stores and sends nothing more and answers like the first,
 * when it is the same request (its fields' keyed hash, `request_sha256`, is the stored row's);
 * another request under a known id is refused (409) and told nothing of the row.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { MIN_FILL_MS, TIMER_FIELD, spamReason, type SpamReason } from '../../shared/anti-spam';
import { CHECK_FIELDS, OTHER_REQUEST, refusal, type FormName } from '../../shared/form-answer';
import { describeProblems, fieldErrors } from '../../shared/fields';
import { failed, ok, type Result } from '../../shared/result';
import { requestFingerprint } from '../platform/crypto';
import { DatabaseUnavailableError, type Queryable } from '../platform/db';
import type { EnqueueOptions, Outbox } from '../platform/outbox';
import { siteOrigin } from '../platform/hosting';
import { refused, stored, type Problem } from './responses';
import {
  afterAnswer,
  postFormat,
  type Client,
  type FunctionContext,
  type PostFormat,
  type Posted,
} from './guard';
import { refusalOf, seeOther, type ProblemWords } from './pages';
import { refusalLink } from './refusal-link';

/** What the site knows about a submission beyond its fields. */
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

/** The part of the site's outbox (src/server/mail-kinds.ts) a form's function uses. */
export type FormOutbox<K extends string> = Pick<Outbox<K>, 'enqueue' | 'deliverNow'>;

/** The fields of the form as its schema reads them, or 422 naming each field to fix. */
export function parse<S extends z.ZodType>(
  schema: S,
  input: unknown,
): Result<z.output<S>, Problem> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return ok(parsed.data);
  const errors = fieldErrors(parsed.error);
  const error = describeProblems(errors) || parsed.error.issues[0]?.message || CHECK_FIELDS;
  return failed({ status: 422, error, fieldErrors: errors });
}

/**
 * What the site makes of a submission beside its fields: its id (the browser's, or one made
 * here), its fingerprint, the spam verdict, and who sent it. `input` is what the schema read.
 */
export function receive(
  form: FormName,
  { body, client, format }: Posted,
  input: unknown,
  data: { submissionId?: string; [field: string]: unknown },
  context: FunctionContext | undefined,
): Received {
  return {
    submissionId: data.submissionId ?? submissionIdFor(form, input, client, format),
    fingerprint: fingerprintOf(form, data),
    // A browser without script keeps no time: its post is not taken for a bot for that alone.
    spam: spamReason(body, MIN_FILL_MS[form], { timerRequired: format === 'json' }),
    timed: typeof body[TIMER_FIELD] === 'number',
    client,
    format,
    origin: siteOrigin(),
    later: (work) => afterAnswer(context, work),
  };
}

/**
 * Queues `mails` in the open transaction, each held back when it says why (`skipped`): the
 * ids of those to send now (a held-back one is never sent; one due later goes when its time comes).
 */
export async function queue<K extends string>(
  tx: Queryable,
  outbox: Pick<FormOutbox<K>, 'enqueue'>,
  mails: readonly QueuedMail<K>[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const { kind, ref, ...options } of mails) {
    const id = await outbox.enqueue(tx, kind, ref, options);
    if (id && !options.skipped && !options.notBefore) ids.push(id);
  }
  return ids;
}

/**
 * A submission id already stored: nothing more is queued when it said the same (its
 * fingerprint is the row's), and another request under it is refused (409), told nothing of the row.
 * `table`, the caller's own, holds the form's rows, with `submission_id` and `request_sha256`.
 */
export async function repeated(
  tx: Queryable,
  table: string,
  received: Received,
): Promise<Result<string[], Problem>> {
  const { rows } = await tx.query(`SELECT request_sha256 FROM ${table} WHERE submission_id = $1`, [
    received.submissionId,
  ]);
  const fingerprint = (rows[0] as { request_sha256: string | null } | undefined)?.request_sha256;
  return sameRequest(fingerprint, received) ? ok([]) : failed(otherRequest());
}

/** Whether a stored row's fingerprint is this request's (a row stored before fingerprints has none). */
export const sameRequest = (stored: string | null | undefined, received: Received) =>
  stored === received.fingerprint;

/** The 409 of a known submission id sent with other details. */
export const otherRequest = (): Problem => ({ status: 409, error: OTHER_REQUEST });

/** A row stored as spam: kept for review, never mailed (the log has its id and the reason only). */
export function keptAsSpam(
  form: FormName,
  id: string,
  reason: SpamReason,
): Result<string[], Problem> {
  console.info(`${form} ${id} kept as spam (${reason}) for review, not e-mailed`);
  return ok([]);
}

/** Sends the queued mails after the answer where the platform allows it; the outbox retries what this misses. */
export async function deliver(
  context: FunctionContext | undefined,
  outbox: Pick<FormOutbox<string>, 'deliverNow'>,
  ids: string[],
): Promise<void> {
  if (ids.length > 0) await afterAnswer(context, outbox.deliverNow(ids));
}

/** The answer to a stored submission: `{ success: true, id }`, or a 303 to `sentPage` without script. */
export function answer(
  received: Received,
  sentPage: string,
  details?: Record<string, unknown>,
): Response {
  if (received.format === 'form') return seeOther(sentPage);
  return stored(received.submissionId, details);
}

/** How a form's refusals read without script. */
export interface NoScript {
  /** The form's own page, for a fresh start. */
  formPage: { href: string; label: string };
  labels: Record<string, string>;
  /** What the page says for a refusal. */
  words: (problem: Problem) => ProblemWords;
  /** A page of the form's own for some refusals, else the problem page. */
  page?: (problem: Problem) => Response | undefined;
}

/**
 * A refusal as JSON for the form's script; for a browser without one, a `303` to the page saying
 * what went wrong and which fields to fix (src/pages/refused.astro, its words in the address:
 * request/refusal-link.ts), or to a page of the form's own.
 */
export function refuse(req: Request, problem: Problem, noScript: NoScript): Promise<Response> {
  if ((postFormat(req) ?? 'json') === 'json') return Promise.resolve(refused(problem));
  const own = noScript.page?.(problem);
  if (own) return Promise.resolve(own);
  const link = refusalLink(
    refusalOf({
      problem,
      words: noScript.words(problem),
      labels: noScript.labels,
      formPage: noScript.formPage,
    }),
  );
  // No key to vouch for the page's words (a host without WAIVER_ENCRYPTION_KEY): the refusal as it is.
  return Promise.resolve(link ? seeOther(link) : refused(problem));
}

/**
 * Whatever broke (the database, a content file missing from the bundle, a bug): 503 with
 * Retry-After for an outage, else 500, in the form's words; the log has the error's name and
 * nothing of the form.
 */
export function fault(form: FormName, error: unknown): Problem {
  const outage = error instanceof DatabaseUnavailableError;
  console.error(
    `${form}: the request failed (${outage ? 'the database is unavailable' : ((error as Error)?.name ?? 'unknown error')})`,
  );
  const status = outage ? 503 : 500;
  return {
    status,
    error: refusal(form, status) ?? 'Please try again.',
    headers: outage ? { 'retry-after': '30' } : undefined,
  };
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
export function submissionIdFor(
  form: FormName,
  fields: unknown,
  client: Client,
  format: PostFormat,
  day = new Date().toISOString().slice(0, 10),
): string {
  if (format === 'json') return randomUUID();
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
