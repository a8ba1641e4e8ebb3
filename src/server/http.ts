/** JSON answers for the functions: never an HTML error page, never a stack trace. */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json(body, {
    status,
    headers: { 'cache-control': 'no-store', ...Object.fromEntries(new Headers(headers)) },
  });
}

/** Reads a JSON body; `undefined` when it is not JSON (the caller answers 400). */
export async function readJson(req: Request): Promise<unknown> {
  const type = req.headers.get('content-type') ?? '';
  if (!type.toLowerCase().includes('application/json')) return undefined;
  return req.json().catch(() => undefined);
}
