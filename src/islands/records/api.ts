import { hc, type ClientResponse } from 'hono/client';
import type { DeskApi } from '../../server/records/api-type';
import { DESK_API, type DeskAnswer, type RefusalReason } from '../../shared/desk-api';
import type { FieldErrors } from '../../shared/fields';

/**
 * The desk's API (src/server/records/api.ts) through Hono's typed client: each route's path,
 * parameters, query, body and answers are the server's own, so an answer changed there is a type
 * error here.
 */
export const desk = hc<DeskApi>(DESK_API);

/** The address of a route the browser opens itself (a download, a form's GET): `desk.<path>.$path()`. */
export const address = (path: string) => `${DESK_API}${path}`;

/** A refusal from the desk's functions, in their words. */
export class DeskError extends Error {
  readonly status: number;
  readonly fieldErrors: FieldErrors;
  /** A refusal the desk handles in its own way (a sign-in too old for an erasure). */
  readonly reason: RefusalReason | undefined;
  constructor(
    status: number,
    message: string,
    fieldErrors: FieldErrors = {},
    reason?: RefusalReason,
  ) {
    super(message);
    this.status = status;
    this.fieldErrors = fieldErrors;
    this.reason = reason;
  }
}

type Listener = () => void;
const signedOut = new Set<Listener>();
const active = new Set<Listener>();

/** Called whenever an answer says the session is gone (401): the desk shows the sign-in form. */
export function onSignedOut(listener: Listener): () => void {
  signedOut.add(listener);
  return () => signedOut.delete(listener);
}

/**
 * Called whenever the desk talks to its functions: each request is a use of the session, which
 * the server ends after IDLE_MINUTES without one.
 */
export function onActivity(listener: Listener): () => void {
  active.add(listener);
  return () => active.delete(listener);
}

/** A request to the desk's functions made other than by `call` (a download): a use too. */
export function noteActivity(): void {
  active.forEach((listener) => listener());
}

/** An answer of the API, as the typed client has it. */
export type Sent = ClientResponse<unknown, number, string>;

/** What a request to the API answers when it succeeds: its `success: true` answer. */
export type Success<R> =
  R extends ClientResponse<infer T, number, string> ? Extract<T, { success: true }> : never;

/**
 * One request to the desk's API (`desk.<path>.$get(...)`, `$post`). Resolves with the answer's
 * fields when it says `success: true`; throws a DeskError with the server's words otherwise.
 */
export async function ask<R extends Sent>(request: Promise<R>): Promise<Success<R>> {
  let response: R;
  try {
    response = await request;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new DeskError(
      0,
      'The records desk could not be reached. Check the connection and try again.',
    );
  }
  noteActivity();
  const answer = (await response.json().catch(() => null)) as DeskAnswer | null;
  const kioskRefusal = answer?.success === false && answer.reason === 'kiosk';
  if (response.status === 401 || kioskRefusal) signedOut.forEach((listener) => listener());
  if (response.ok && answer?.success) return answer as Success<R>;
  const refusal = answer && !answer.success ? answer : undefined;
  const words =
    refusal?.error ??
    `The records desk answered with an error (HTTP ${response.status}). Please try again.`;
  throw new DeskError(response.status, words, refusal?.fieldErrors, refusal?.reason);
}
