/**
 * The records desk's function as a browser on the desk calls it: the function with its
 * `config.path`, a request routed to it as Netlify routes it, a cookie jar of one session, and
 * sign-in through the mail that arrives at the test's SMTP server.
 */
import type { Config } from '@netlify/functions';
import deskApi, { config as deskConfig } from '../../functions/desk';
import type { DeskRoute } from '../../src/server/records/router';
import { contactBody, waiverBody } from '../fixtures/submissions';
import type { TestSmtp } from './harness';

export const ORIGIN = 'http://127.0.0.1:8888';
export const STAFF = 'maya@example.test';
export const CLIENT_IP = '198.51.100.20';
/** The honeypot filled in, as a bot fills it. */
const SPAM = { website: 'https://spam.example' };

type Handler = ((req: Request, context?: never) => Promise<Response>) & { routes: DeskRoute[] };

/** The desk's functions: one, its router answering every path under /api/records. */
export const DESK_FUNCTIONS: { name: string; handler: Handler; config: Config }[] = [
  { name: 'desk', handler: deskApi, config: deskConfig },
] as never;

const paths = (config: Config) => [config.path ?? []].flat();

/** The function whose `config.path` (as Netlify routes it: any case) owns `path`. */
export function functionFor(path: string): Handler {
  const pathname = new URL(path, ORIGIN).pathname;
  const owner = DESK_FUNCTIONS.find(({ config }) =>
    paths(config).some((pattern) =>
      new URLPattern({ pathname: pattern }, { ignoreCase: true }).test({ pathname }),
    ),
  );
  if (!owner) throw new Error(`No records function routes ${pathname}`);
  return owner.handler;
}

export interface DeskRequestInit {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  cookie?: string;
  headers?: Record<string, string>;
  ip?: string;
}

export function deskRequest(path: string, init: DeskRequestInit = {}): Request {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = {
    ...(method === 'POST' && { origin: ORIGIN, 'content-type': 'application/json' }),
    ...(init.cookie && { cookie: init.cookie }),
    ...init.headers,
  };
  return new Request(new URL(path, ORIGIN), {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** Calls the function that owns `path`, as the platform would (with the client's address). */
export function desk(path: string, init: DeskRequestInit = {}): Promise<Response> {
  return functionFor(path)(deskRequest(path, init), { ip: init.ip ?? CLIENT_IP } as never);
}

/** The `name=value` of a response's (first) Set-Cookie, the session's, ready for a Cookie header. */
export function cookieOf(response: Response): string | undefined {
  return response.headers.getSetCookie()[0]?.split(';')[0];
}

/** The token of the newest sign-in link mailed to `to`. */
export function linkToken(smtp: TestSmtp, to = STAFF): string {
  const mail = smtp.mails.filter((m) => m.envelope.to.includes(to)).at(-1);
  const token = /#token=([A-Za-z0-9_-]+)/.exec(mail?.text ?? '')?.[1];
  if (!token) throw new Error(`No sign-in link mailed to ${to}`);
  return token;
}

/** Signs in as `STAFF` through a mailed link; the session cookie. */
export async function signIn(smtp: TestSmtp, email = STAFF): Promise<string> {
  const before = smtp.mails.length;
  const asked = await desk('/api/records/sign-in', { body: { email } });
  if (asked.status !== 200) throw new Error(`sign-in request answered ${asked.status}`);
  await smtp.waitForMails(before + 1);
  const session = await desk('/api/records/session', { body: { token: linkToken(smtp, email) } });
  const cookie = cookieOf(session);
  if (session.status !== 200 || !cookie) throw new Error(`session answered ${session.status}`);
  return cookie;
}

/** A waiver signed through the real form function, as a person's browser sends it. */
export async function signWaiver(fields: Record<string, unknown> = {}, spam = false) {
  const { default: submitWaiver } = await import('../../functions/submit-waiver');
  const response = await submitWaiver(
    new Request(`${ORIGIN}/api/submit-waiver`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', 'user-agent': 'DeskTest/1.0' },
      body: JSON.stringify({ ...waiverBody(fields), ...(spam && SPAM) }),
    }),
    { ip: '203.0.113.9' } as never,
  );
  const answer = (await response.json()) as { success: boolean; id: string };
  if (!answer.success) throw new Error(`the waiver was refused (${response.status})`);
  return answer.id;
}

/** A message sent through the real contact function; `spam` fills in the honeypot. */
export async function sendMessage(fields: Record<string, unknown> = {}, spam = false) {
  const { default: sendEmail } = await import('../../functions/send-email');
  const response = await sendEmail(
    new Request(`${ORIGIN}/api/send-email`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ ...contactBody(fields), ...(spam && SPAM) }),
    }),
    { ip: '203.0.113.10' } as never,
  );
  if (response.status !== 200) throw new Error(`the message was refused (${response.status})`);
}
