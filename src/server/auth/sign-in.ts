import { waitInWords } from '../../shared/anti-spam';
import { sendMail, transportCode } from '../platform/mail';
import { failed, ok, type Result } from '../../shared/result';
import { readSetting } from '../platform/settings';
import type { Problem } from '../request/responses';
import { clientNetwork, countRequest } from '../request/rate-limit';
import { createSignInLink, signInMail } from './links';
import { isStaff } from './staff';

/** Per client and per address asked for. */
const LIMITS = { client: 'SIGN_IN_RATE_LIMIT', address: 'SIGN_IN_ADDRESS_LIMIT' } as const;

/**
 * Counts a sign-in request against the limit per client (its IP) and then per address asked for
 * (each stored only as a keyed hash by the rate limiter): allowed, or the 429 that says when to
 * try again.
 */
export async function signInAllowed(ip: string, email: string): Promise<Result<void, Problem>> {
  for (const [which, key] of [
    ['client', clientNetwork(ip)],
    ['address', email],
  ] as const) {
    const verdict = await countRequest(`records-sign-in-${which}`, key, readSetting(LIMITS[which]));
    if (verdict.allowed) continue;
    const wait = verdict.retryAfterSeconds;
    return failed({
      status: 429,
      error: `Too many sign-in links have been asked for. Please try again in ${waitInWords(wait)}.`,
      headers: { 'retry-after': String(wait) },
    });
  }
  return ok(undefined);
}

/**
 * Mails a sign-in link if `email` may sign in, and otherwise does nothing: the caller answers
 * both the same. Returns the sending to finish after the answer (`undefined`: nothing to send).
 * The mail goes straight to `sendMail`, not through the outbox: the outbox composes a mail later
 * from a stored row, and the link's token is stored only as a hash, so nothing could rebuild it.
 * Without SMTP_URL it lands as an .eml file in the local outbox and its path is logged.
 */
export async function sendSignInLink(email: string): Promise<Promise<void> | undefined> {
  if (!isStaff(email)) return undefined;
  const token = await createSignInLink(email);
  return sendMail(signInMail(email, token)).then(
    () => undefined,
    (error: unknown) => {
      console.error(`records desk: a sign-in link could not be mailed (${transportCode(error)})`);
    },
  );
}

/** Waits until `ms` after `since`: an answer that took less time says nothing by its speed. */
export async function steady(since: number, ms = 400): Promise<void> {
  const left = since + ms - Date.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
}
