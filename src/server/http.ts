/**
 * Headers every function answer carries. Netlify applies `_headers` to static files only, never
 * to a function's response, so the functions send their own: an API answer is JSON that nothing
 * should render, frame, sniff or run.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'cross-origin-resource-policy': 'same-origin',
};

/** JSON answers for the functions: never an HTML error page, never a stack trace. */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json(body, {
    status,
    headers: {
      'cache-control': 'no-store',
      ...API_SECURITY_HEADERS,
      ...Object.fromEntries(new Headers(headers)),
    },
  });
}

/** Whether the request says its body is JSON (`application/json`, any parameters). */
export function isJsonRequest(req: Request): boolean {
  const type = req.headers.get('content-type') ?? '';
  return type.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** Reads a JSON body; `undefined` when it is not JSON. Unbounded: prefer `guardPost` (guard.ts). */
export async function readJson(req: Request): Promise<unknown> {
  if (!isJsonRequest(req)) return undefined;
  return req.json().catch(() => undefined);
}
