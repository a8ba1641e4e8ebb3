import type { Config, Context } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/lib/anti-spam';
import { contactFieldErrors, contactSchema } from '../src/lib/contact';
import { receiveContactMessage } from '../src/server/contact';
import { DatabaseUnavailableError } from '../src/server/db';
import { guardPost, type GuardOptions } from '../src/server/guard';
import { json } from '../src/server/http';
import { parseRateLimit } from '../src/server/rate-limit';
import { spamReason } from '../src/server/spam';

export const config: Config = { path: '/api/send-email' };

const UNAVAILABLE = 'Your message could not be saved just now. Please try again shortly.';

const guard: Omit<GuardOptions, 'rateLimit'> = {
  bucket: 'contact',
  maxBytes: 32 * 1024,
  noun: 'messages',
  tooLarge: 'Your message is too long to send. Please shorten it and try again.',
  unavailable: UNAVAILABLE,
  reject: (status, error, headers) => json({ ok: false, error }, status, headers),
};

/** The contact form: the visitor's fields in, the studio's inbox out (see DESIGN.md). */
export default async (req: Request, context?: Context): Promise<Response> => {
  const rateLimit = parseRateLimit(process.env.CONTACT_RATE_LIMIT, {
    limit: 5,
    windowSeconds: 600,
  });
  const checked = await guardPost(req, context, { ...guard, rateLimit });
  if (checked.response) return checked.response;

  const parsed = contactSchema.safeParse(checked.body);
  if (!parsed.success) {
    const fieldErrors = contactFieldErrors(parsed.error);
    return json({ ok: false, error: 'Please check the highlighted fields.', fieldErrors }, 422);
  }
  try {
    // Stored means it reaches the studio: an unsent e-mail stays queued in the outbox.
    // A repeated submission id answers exactly like the first time.
    const { submissionId } = await receiveContactMessage(
      parsed.data,
      spamReason(checked.body, MIN_FILL_MS.contact),
    );
    return json({ ok: true, id: submissionId });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      console.error('send-email: the database is unavailable; nothing stored or sent');
      return json({ ok: false, error: UNAVAILABLE }, 503, { 'retry-after': '30' });
    }
    console.error('send-email: storing the message failed', (error as Error)?.name);
    return json({ ok: false, error: 'Your message could not be saved. Please try again.' }, 500);
  }
};
