/**
 * Fetches the instructor's calendar from its secret address with a time limit and a size cap,
 * and says plainly what went wrong. No caching here: the caller keeps the last good copy.
 *
 * The address is a secret (whoever holds it reads her whole calendar), so it is never put in a
 * message, a log line or an error; the messages name the kind of failure only.
 */
import { looksLikeCalendar } from './ics-text';

export type FeedFailureReason =
  'address' | 'timeout' | 'unreachable' | 'status' | 'too-large' | 'not-calendar';

export type FeedResult =
  | { ok: true; text: string }
  | { ok: false; reason: FeedFailureReason; message: string; status?: number };

export interface FeedLimits {
  timeoutMs?: number;
  maxBytes?: number;
}

/** The address to fetch: Apple's webcal:// is https:// by another name. */
export function feedUrl(address: string): URL | undefined {
  const url = URL.parse(address.trim().replace(/^webcals?:\/\//i, 'https://'));
  return url && (url.protocol === 'https:' || url.protocol === 'http:') ? url : undefined;
}

const fail = (reason: FeedFailureReason, message: string, status?: number): FeedResult => ({
  ok: false,
  reason,
  message,
  ...(status === undefined ? {} : { status }),
});

export async function fetchBusyFeed(address: string, limits: FeedLimits = {}): Promise<FeedResult> {
  const { timeoutMs = 10_000, maxBytes = 5 * 1024 * 1024 } = limits;
  const url = feedUrl(address);
  if (!url)
    return fail('address', 'The calendar address is not a web address (https:// or webcal://).');
  const tooLarge = fail(
    'too-large',
    `The calendar is larger than ${maxBytes.toLocaleString('en-US')} bytes.`,
  );
  // One signal for the whole exchange: a server that sends headers and then stalls times out too.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { signal, headers: { accept: 'text/calendar, */*;q=0.5' } });
    if (!response.ok) {
      await response.body?.cancel();
      return fail(
        'status',
        `The calendar address answered HTTP ${response.status}.`,
        response.status,
      );
    }
    if (Number(response.headers.get('content-length')) > maxBytes) {
      await response.body?.cancel();
      return tooLarge;
    }
    const text = await readAtMost(response, maxBytes);
    if (text === undefined) return tooLarge;
    if (!looksLikeCalendar(text)) {
      return fail(
        'not-calendar',
        'The calendar address answered with something other than a calendar (was the secret address reset?).',
      );
    }
    return { ok: true, text };
  } catch (error) {
    if (signal.aborted)
      return fail('timeout', `The calendar address did not answer within ${timeoutMs} ms.`);
    // The cause's code (ECONNREFUSED, ENOTFOUND) says enough; its message would carry the host.
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    return fail(
      'unreachable',
      `The calendar address could not be reached${typeof code === 'string' ? ` (${code})` : ''}.`,
    );
  }
}

/** The body as text, or undefined once it grows past `maxBytes` (the rest is never read). */
async function readAtMost(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text + decoder.decode();
}
