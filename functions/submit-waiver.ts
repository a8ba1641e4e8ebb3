import type { Config, Context } from '@netlify/functions';
import { describeProblems, waiverRequestSchema } from '../src/lib/waiver';
import { DatabaseUnavailableError } from '../src/server/db';
import { MIN_FILL_MS } from '../src/lib/anti-spam';
import { guardPost, type GuardOptions } from '../src/server/guard';
import { json } from '../src/server/http';
import { parseRateLimit } from '../src/server/rate-limit';
import { spamReason } from '../src/server/spam';
import { checkSignature } from '../src/server/signature';
import { currentWaiverText, storeWaiver } from '../src/server/waiver';
import { deliverNow } from '../src/server/outbox';
// Registers the composers of the two waiver e-mails with the outbox.
import '../src/server/waiver-mail';

export const config: Config = { path: '/api/submit-waiver' };

const UNAVAILABLE =
  'We could not save your waiver right now, so nothing was recorded. Please try again in a few minutes, or contact us directly.';

const fail = (status: number, error: string, headers: HeadersInit = {}) =>
  json({ success: false, error }, status, headers);

const guard: Omit<GuardOptions, 'rateLimit'> = {
  bucket: 'waiver',
  maxBytes: 1024 * 1024,
  noun: 'waivers',
  tooLarge: 'The waiver is too large. Please clear the signature and sign again.',
  unavailable: UNAVAILABLE,
  reject: fail,
};

function clientIp(req: Request, context: Partial<Context> | undefined): string | null {
  const forwarded = req.headers.get('x-forwarded-for')?.split(',')[0];
  const ip = context?.ip || req.headers.get('x-nf-client-connection-ip') || forwarded;
  return ip?.trim() || null;
}

export default async function submitWaiver(req: Request, context?: Context): Promise<Response> {
  const rateLimit = parseRateLimit(process.env.WAIVER_RATE_LIMIT, {
    limit: 20,
    windowSeconds: 3_600,
  });
  const checked = await guardPost(req, context, { ...guard, rateLimit });
  if (checked.response) return checked.response;
  const body = checked.body;

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

  // Spam is stored for review and answered like any waiver, but never mailed.
  const spam = spamReason(body, MIN_FILL_MS.waiver);
  let stored;
  try {
    stored = await storeWaiver(
      waiver,
      signature.png,
      { clientIp: clientIp(req, context), userAgent: req.headers.get('user-agent') },
      text,
      spam,
    );
  } catch (error) {
    const outage = error instanceof DatabaseUnavailableError;
    console.error(
      `submit-waiver: could not store a waiver (${outage ? 'database unavailable' : (error as Error)?.name})`,
    );
    return fail(outage ? 503 : 500, UNAVAILABLE, outage ? { 'retry-after': '30' } : {});
  }
  if (spam) {
    if (!stored.duplicate)
      console.info(`Waiver ${stored.id} kept as spam (${spam}) for review, not e-mailed`);
    return json({ success: true, id: stored.id });
  }

  // Stored means filed: an e-mail the mail server refuses now stays queued in the outbox and
  // is retried (functions/retry-mail.ts). A repeated submission id answers like the first time.
  await deliverNow(stored.outboxIds);
  return json({ success: true, id: stored.id });
}
