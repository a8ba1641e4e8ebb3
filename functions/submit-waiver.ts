import type { Config, Context } from '@netlify/functions';
import { describeProblems, waiverRequestSchema } from '../src/lib/waiver';
import { DatabaseUnavailableError } from '../src/server/db';
import { json } from '../src/server/http';
import { checkSignature } from '../src/server/signature';
import { currentWaiverText, storeWaiver } from '../src/server/waiver';
import { deliverNow } from '../src/server/outbox';
// Registers the composers of the two waiver e-mails with the outbox.
import '../src/server/waiver-mail';

export const config: Config = { path: '/api/submit-waiver' };

const MAX_BODY_BYTES = 1024 * 1024;

const fail = (status: number, error: string, headers: HeadersInit = {}) =>
  json({ success: false, error }, status, headers);

function clientIp(req: Request, context: Partial<Context> | undefined): string | null {
  const forwarded = req.headers.get('x-forwarded-for')?.split(',')[0];
  const ip = context?.ip || req.headers.get('x-nf-client-connection-ip') || forwarded;
  return ip?.trim() || null;
}

export default async function submitWaiver(req: Request, context?: Context): Promise<Response> {
  if (req.method !== 'POST') {
    return fail(405, 'Please submit the waiver with POST.', { allow: 'POST' });
  }
  if (!(req.headers.get('content-type') ?? '').toLowerCase().includes('application/json')) {
    return fail(415, 'Please send the waiver as JSON (Content-Type: application/json).');
  }
  if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) {
    return fail(413, 'The waiver is too large. Please clear the signature and sign again.');
  }
  const body = await req.json().catch(() => undefined);
  if (body === undefined) {
    return fail(400, 'The request body is not valid JSON. Please send {"waiver": {...}}.');
  }

  const parsed = waiverRequestSchema.safeParse(body);
  if (!parsed.success) return fail(422, describeProblems(parsed.error));
  const waiver = parsed.data.waiver;
  const signature = checkSignature(waiver.signature);
  if (!signature.ok) return fail(422, signature.error);

  const text = currentWaiverText();
  if (waiver.waiverVersion && waiver.waiverVersion !== text.version) {
    return fail(
      409,
      'The waiver text has been updated since this page was loaded. Please reload the page, read the current waiver and sign again.',
    );
  }

  let stored;
  try {
    stored = await storeWaiver(
      waiver,
      signature.png,
      { clientIp: clientIp(req, context), userAgent: req.headers.get('user-agent') },
      text,
    );
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    console.error(
      `submit-waiver: could not store a waiver (${outage ? 'database unavailable' : (error as Error)?.name})`,
    );
    return fail(
      outage ? 503 : 500,
      'We could not save your waiver right now, so nothing was recorded. Please try again in a few minutes, or contact us directly.',
      outage ? { 'retry-after': '30' } : {},
    );
  }

  // Stored means filed: an e-mail the mail server refuses now stays queued in the outbox and
  // is retried (functions/retry-mail.ts). A repeated submission id answers like the first time.
  await deliverNow(stored.outboxIds);
  return json({ success: true, id: stored.id });
}
