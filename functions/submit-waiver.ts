import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/forms/anti-spam';
import { TEXT_CHANGED } from '../src/forms/answer';
import { waiverSchema } from '../src/forms/waiver';
import { formFunction } from '../src/server/request/pipeline';
import { checkSignature } from '../src/server/waiver/signature';
import { insertWaiver } from '../src/server/waiver/store';
import { currentWaiverText } from '../src/server/waiver/text';

export const config: Config = { path: '/api/submit-waiver' };

/**
 * The waiver form: `{ waiver: {...} }` in, stored with its audit trail and the exact text signed,
 * then its PDF to the studio's records inbox and a copy without health details to the participant.
 */
export default formFunction({
  form: 'waiver',
  maxBytes: 1024 * 1024,
  // A studio tablet may sign a whole class in.
  rateLimit: { setting: 'WAIVER_RATE_LIMIT', fallback: { limit: 20, windowSeconds: 3_600 } },
  minFillMs: MIN_FILL_MS.waiver,
  schema: waiverSchema,
  fields: (body) => body.waiver,
  check(waiver) {
    const signature = checkSignature(waiver.signature);
    if (!signature.ok) {
      const fieldErrors = { signature: signature.error };
      return { problem: { status: 422, error: signature.error, fieldErrors } };
    }
    const text = currentWaiverText();
    if (waiver.waiverVersion && waiver.waiverVersion !== text.version) {
      return { problem: { status: 409, error: TEXT_CHANGED } };
    }
    return { value: { signaturePng: signature.png, text } };
  },
  insert: insertWaiver,
  mails: ['waiver-records', 'waiver-participant'],
});
