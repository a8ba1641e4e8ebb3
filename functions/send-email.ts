import type { Config } from '@netlify/functions';
import { contactFieldErrors, contactSchema } from '../src/lib/contact';
import { receiveContactMessage } from '../src/server/contact';
import { DatabaseUnavailableError } from '../src/server/db';
import { isJsonRequest, json, readJson } from '../src/server/http';

export const config: Config = { path: '/api/send-email' };

/** The contact form: the visitor's fields in, the studio's inbox out (see DESIGN.md). */
export default async (req: Request): Promise<Response> => {
  if (req.method !== 'POST') {
    return json({ ok: false, error: 'Send the message with POST.' }, 405, { allow: 'POST' });
  }
  if (!isJsonRequest(req)) {
    return json({ ok: false, error: 'Send the message as JSON.' }, 415);
  }
  const body = await readJson(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return json({ ok: false, error: 'Send the message as a JSON object.' }, 400);
  }
  const parsed = contactSchema.safeParse(body);
  if (!parsed.success) {
    const fieldErrors = contactFieldErrors(parsed.error);
    return json({ ok: false, error: 'Please check the highlighted fields.', fieldErrors }, 422);
  }
  try {
    // Stored means it reaches the studio: an unsent e-mail stays queued in the outbox.
    // A repeated submission id answers exactly like the first time.
    const { submissionId } = await receiveContactMessage(parsed.data);
    return json({ ok: true, id: submissionId });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      console.error('send-email: the database is unavailable; nothing stored or sent');
      return json(
        { ok: false, error: 'Your message could not be saved just now. Please try again shortly.' },
        503,
        { 'retry-after': '30' },
      );
    }
    console.error('send-email: storing the message failed', (error as Error)?.name);
    return json({ ok: false, error: 'Your message could not be saved. Please try again.' }, 500);
  }
};
