import { sendMail, transportCode } from '../platform/mail';
import { readSetting, type RateLimitSetting } from '../platform/settings';
import { clientNetwork, countRequest } from '../request/rate-limit';
import { knownDevice } from './devices';
import { createSignInLink, signInMail } from './links';
import { isStaff } from './staff';

/**
 * Whether a sign-in link may be mailed for this request. Over any limit the desk answers exactly
 * as always (the same words, status and time) and mails nothing, so the answer says nothing about
 * the limits, nor about the address.
 *
 * The limits are keyed so that a stranger cannot spend the instructor's allowance:
 *
 * - From a device she signed in on before (its cookie, devices.ts), for that address: only that
 *   device's own limit (SIGN_IN_RATE_LIMIT). Nobody else's requests count there.
 * - From anywhere else, in order, each counted only when the one before let the request through:
 *   the client's network (SIGN_IN_RATE_LIMIT), the address asked for from that network
 *   (SIGN_IN_ADDRESS_LIMIT), and the address from everywhere (SIGN_IN_INBOX_LIMIT), which bounds
 *   how many links strangers on many networks can have mailed to her inbox.
 *
 * The trade-off: strangers on many networks can use up the inbox limit and so hold back her
 * link on a device she never signed in on (a new phone) until the window ends; on her own
 * devices she always gets it. Strangers on her own network (the studio's Wi-Fi) share that
 * network's allowances with her, but not her devices'.
 */
export async function signInAllowed(req: Request, ip: string, email: string): Promise<boolean> {
  const device = await knownDevice(req, email);
  if (device) return within('records-sign-in-device', device, 'SIGN_IN_RATE_LIMIT');
  const network = clientNetwork(ip);
  return (
    (await within('records-sign-in-client', network, 'SIGN_IN_RATE_LIMIT')) &&
    (await within('records-sign-in-address', `${email} ${network}`, 'SIGN_IN_ADDRESS_LIMIT')) &&
    (await within('records-sign-in-inbox', email, 'SIGN_IN_INBOX_LIMIT'))
  );
}

async function within(bucket: string, key: string, setting: RateLimitSetting): Promise<boolean> {
  const { allowed } = await countRequest(bucket, key, readSetting(setting));
  // Said without the address or the client: how often it happens is what matters.
  if (!allowed) console.warn(`records desk: a sign-in link was held back (${setting})`);
  return allowed;
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
