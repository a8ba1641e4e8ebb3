/**
 * Request helpers of the function tests. Their database and SMTP server come from the shared
 * fixture, `useFunctionEnv()` in tests/fixtures/function-env.ts; `startSmtp()` is re-exported for
 * the browser tests (tests/e2e/), which run their own server.
 */
export { startSmtp, type TestSmtp } from '../fixtures/smtp';

/**
 * A JSON POST as the site's own page sends it: `Origin` is the URL's own origin (browsers send it
 * with every POST), so the origin check lets it through. `body` is sent as is when a string.
 */
export function jsonPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(url, {
    method: 'POST',
    headers: { origin: new URL(url).origin, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A form post as a browser sends it: urlencoded fields and the page's own origin. */
export function formPost(
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Request {
  return new Request(url, {
    method: 'POST',
    headers: {
      origin: new URL(url).origin,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

/** A body that produces `next()` chunk after chunk, never ending: streamed, with no length. */
export function streamOf(next: () => Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      controller.enqueue(next());
    },
  });
}

/**
 * The page a browser without script lands on when a form's function refuses its post: the
 * function's `303` to /refused (the site's words in the address, never a typed value), followed
 * as the browser follows it, with a GET, and rendered as the site renders it.
 */
export async function refusalPage(response: Response): Promise<Response> {
  const { renderPage } = await import('../fixtures/on-demand');
  const location = response.headers.get('location') ?? '';
  if (response.status !== 303 || !location.startsWith('/refused?')) {
    throw new Error(`Expected a 303 to /refused, got ${response.status} ${location}`);
  }
  return renderPage(new Request(new URL(location, 'http://127.0.0.1:8888')));
}
