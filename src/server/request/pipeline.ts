/**
 * The one way a form's submission travels through a function:
 *
 *   guard → validate → the form's own checks → spam verdict → store the row and queue its mails
 *   in one transaction → answer → deliver the mails (after the answer)
 *
 * A form says only what is particular to it (`FormFunction`); everything else is here, once.
 * Stored means it reaches the studio: the answer goes out as soon as the transaction commits,
 * and the mails are sent after it (Netlify's `context.waitUntil`), or later by the outbox's
 * retry if this instance stops first. Spam is stored, marked, answered like anything else and
 * never mailed. A repeated submission id stores and sends nothing more and answers like the first.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { CHECK_FIELDS, refusal, type FormName } from '../../forms/answer';
import { describeProblems, fieldErrors } from '../../forms/fields';
import { DatabaseUnavailableError, transaction, type Queryable } from '../platform/db';
import type { MailKind } from '../platform/mail-kinds';
import { deliverNow, enqueueMail } from '../platform/outbox';
import { refused, stored, type Problem } from './answers';
import { guardPost, type Client, type ClientContext } from './guard';
import { parseRateLimit, type RateLimit } from './rate-limit';
import { spamReason, type SpamReason } from './spam';

/** What the pipeline knows about a submission beyond its fields. */
export interface Received {
  /** The browser's submission id, or one made here when it sent none. */
  submissionId: string;
  spam: SpamReason | null;
  client: Client;
}

/** The part of Netlify's context the pipeline uses (tests may pass less, or nothing). */
export interface FunctionContext extends ClientContext {
  waitUntil?: (promise: Promise<unknown>) => void;
}

type Checked<E> = { problem: Problem } | { value: E };

export interface FormFunction<S extends z.ZodType<{ submissionId?: string }>, E> {
  form: FormName;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** The setting that may change the rate limit (e.g. `CONTACT_RATE_LIMIT`), and the default. */
  rateLimit: { setting: string; fallback: RateLimit };
  /** The time trap: nobody fills in this form faster (milliseconds). */
  minFillMs: number;
  schema: S;
  /** Where the form's fields are in the body (the waiver nests them in `waiver`). */
  fields?: (body: Record<string, unknown>) => unknown;
  /** Checks the schema cannot make; what they find out is handed on to `insert`. */
  check?: (data: z.output<S>) => Checked<E> | Promise<Checked<E>>;
  /** Stores the row in the open transaction: its id, or `undefined` for a known submission id. */
  insert: (
    tx: Queryable,
    data: z.output<S>,
    received: Received,
    checked: E,
  ) => Promise<string | undefined>;
  /** The mails a stored (not spam) submission owes, composed later from the row's id. */
  mails: readonly MailKind[];
}

export function formFunction<S extends z.ZodType<{ submissionId?: string }>, E = undefined>(
  spec: FormFunction<S, E>,
) {
  const { form } = spec;
  const handler = async (req: Request, context?: FunctionContext): Promise<Response> => {
    const rateLimit = parseRateLimit(process.env[spec.rateLimit.setting], spec.rateLimit.fallback);
    const guarded = await guardPost(req, context, { form, maxBytes: spec.maxBytes, rateLimit });
    if (guarded.problem) return refused(guarded.problem);
    const { body, client } = guarded.posted;

    const parsed = spec.schema.safeParse(spec.fields ? spec.fields(body) : body);
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error);
      const error = describeProblems(errors) || parsed.error.issues[0]?.message || CHECK_FIELDS;
      return refused({ status: 422, error, fieldErrors: errors });
    }
    const data = parsed.data;
    const checked = spec.check ? await spec.check(data) : { value: undefined as E };
    if ('problem' in checked) return refused(checked.problem);

    const received: Received = {
      submissionId: data.submissionId ?? randomUUID(),
      spam: spamReason(body, spec.minFillMs),
      client,
    };
    let queued: string[];
    try {
      queued = await transaction(async (tx) => {
        const ref = await spec.insert(tx, data, received, checked.value);
        if (ref === undefined || received.spam) {
          if (ref !== undefined) {
            console.info(`${form} ${ref} kept as spam (${received.spam}) for review, not e-mailed`);
          }
          return [];
        }
        const ids: string[] = [];
        for (const kind of spec.mails) {
          const id = await enqueueMail(tx, kind, ref);
          if (id) ids.push(id);
        }
        return ids;
      });
    } catch (error) {
      const outage = error instanceof DatabaseUnavailableError;
      console.error(
        `${form}: nothing stored (${outage ? 'the database is unavailable' : (error as Error)?.name})`,
      );
      const status = outage ? 503 : 500;
      return refused({
        status,
        error: refusal(form, status) ?? 'Please try again.',
        headers: outage ? { 'retry-after': '30' } : undefined,
      });
    }

    if (queued.length > 0) {
      const delivery = deliverNow(queued);
      // After the answer where the platform allows it; the outbox retries what this misses.
      if (context?.waitUntil) context.waitUntil(delivery);
      else await delivery;
    }
    return stored(received.submissionId);
  };
  // What the function may queue, readable by the test that every such kind has a composer.
  return Object.assign(handler, { form, mails: spec.mails });
}
