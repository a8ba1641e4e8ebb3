/**
 * Small pieces shared by the server's answers: hop-by-hop headers, the JSON problem answers the
 * server gives itself, sending a web `Response` (streamed, each Set-Cookie kept), and hanging up
 * on a client whose body is refused.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { API_SECURITY_HEADERS } from '../../src/server/request/responses.ts';

/** Headers about one connection, not the message: never passed on in either direction. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/** Whether the request says a body follows. */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Before a response starts: if the client is still sending a body nobody will read, let what
 * still arrives drain away unread for a moment once the answer is out, so the client reads the
 * answer rather than a reset, then hang up. (Not with `Connection: close`: Node closes the socket
 * as soon as such an answer is written, and the bytes still coming then reset the connection,
 * which can take the unread answer with it.)
 */
export function prepareHead(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || !hasBody(req) || res.headersSent) return;
  res.once('finish', () => {
    if (req.complete) return;
    req.resume();
    setTimeout(() => req.socket.destroy(), 2_000).unref();
  });
}

/** The server's own `{ success: false, error }` answer. */
export function sendProblem(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  error: string,
  headers: OutgoingHttpHeaders = {},
): void {
  if (res.headersSent || res.destroyed) return;
  prepareHead(req, res);
  const body = JSON.stringify({ success: false, error });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...API_SECURITY_HEADERS,
    ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The server's own answer in plain words (400, 404 with no page, 405, 500, 502). */
export function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string) {
  if (res.headersSent || res.destroyed) return;
  prepareHead(req, res);
  res.writeHead(status, {
    ...API_SECURITY_HEADERS,
    'cache-control': 'no-store',
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(req.method === 'HEAD' ? undefined : text);
}

const NO_BODY = new Set([204, 205, 304]);

/** Sends a web `Response`: status, headers (every Set-Cookie on its own line), streamed body. */
export async function sendResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  extra: OutgoingHttpHeaders = {},
): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie' && !HOP_BY_HOP.has(name)) headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  Object.assign(headers, extra);
  prepareHead(req, res);
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (!response.body || req.method === 'HEAD' || NO_BODY.has(response.status)) {
    res.end();
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  try {
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res);
  } catch {
    // The client left, or the function's stream failed: nothing more can be sent.
    res.destroy();
  }
}
