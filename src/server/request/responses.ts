import type { FieldErrors } from '../../shared/fields';

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

/** Why a request was refused: its status, the words for the visitor, and any extra headers. */
export interface Problem {
  status: number;
  error: string;
  fieldErrors?: FieldErrors;
  headers?: Record<string, string>;
  /** More for the form's script beside `error` (a taken slot's nearest free ones). */
  details?: Record<string, unknown>;
}

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

/**
 * `405 Method Not Allowed` for a page's path (a link page, the booking page): plain words, the
 * methods it takes, and the security headers every answer carries.
 */
export function methodNotAllowed(allow: string): Response {
  return new Response('Method Not Allowed', {
    status: 405,
    headers: {
      ...API_SECURITY_HEADERS,
      'cache-control': 'no-store',
      'content-type': 'text/plain; charset=utf-8',
      allow,
    },
  });
}

/** `{ success: true, id }`: the submission is stored under `id` (with a form's `details`). */
export function stored(id: string, details: Record<string, unknown> = {}): Response {
  return json({ ...details, success: true, id });
}

/** `{ success: false, error, fieldErrors? }` with the problem's status and headers. */
export function refused({ status, error, fieldErrors, headers, details }: Problem): Response {
  return json(
    { ...details, success: false, error, ...(fieldErrors && { fieldErrors }) },
    status,
    headers,
  );
}
