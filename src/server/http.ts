/** JSON answers for the functions: never an HTML error page, never a stack trace. */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json(body, {
    status,
    headers: { 'cache-control': 'no-store', ...Object.fromEntries(new Headers(headers)) },
  });
}

/** Whether the request says its body is JSON (`application/json`, any parameters). */
export function isJsonRequest(req: Request): boolean {
  const type = req.headers.get('content-type') ?? '';
  return type.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** Reads a JSON body; `undefined` when it is not JSON (the caller answers 400). */
export async function readJson(req: Request): Promise<unknown> {
  if (!isJsonRequest(req)) return undefined;
  return req.json().catch(() => undefined);
}
