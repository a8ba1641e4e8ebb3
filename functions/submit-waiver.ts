import type { Config } from '@netlify/functions';
import { WAIVER_LABELS, waiverProblemNotice, waiverSchema } from '../src/shared/waiver';
import { outbox } from '../src/server/mail-kinds';
import { readSetting } from '../src/server/platform/settings';
import { guardPost, type FunctionContext, type Posted } from '../src/server/request/guard';
import {
  answer,
  deliver,
  fault,
  parse,
  receive,
  refuse,
  type NoScript,
} from '../src/server/request/steps';
import { kioskOf } from '../src/server/waiver/kiosk';
import { signedWith } from '../src/server/waiver/signature';
import { storeWaiver } from '../src/server/waiver/store';
import { PAGES } from '../src/shared/site-paths';

export const config: Config = { path: '/api/submit-waiver' };

const NO_SCRIPT: NoScript = {
  formPage: { href: PAGES.waiver, label: 'Return to the waiver' },
  labels: WAIVER_LABELS,
  words: waiverProblemNotice,
};

/**
 * The waiver's fields: `{ waiver: {...} }` from its script, or the form's own fields posted
 * without script, where a ticked box is `on`, an unticked one absent, and an empty field ''.
 */
function waiverFields({ body, format }: Posted): unknown {
  if (format === 'json') return body.waiver ?? body;
  return {
    ...body,
    agreedToTerms: body.agreedToTerms !== undefined,
    agreedToPhotos: body.agreedToPhotos !== undefined,
    signatureKind: body.signatureKind || undefined,
  };
}

/** The studio's kiosk (a device the desk made one): a class signs in a row from one address. */
const isKiosk = async (req: Request) => (await kioskOf(req, { signing: true })) !== undefined;

/**
 * The waiver form: stored with its audit trail and the exact text signed; then its PDF to the
 * studio's records inbox and a copy with nothing typed but the first name to the participant
 * (at most WAIVER_COPY_LIMIT a day to one address).
 */
export default async function submitWaiver(req: Request, context?: FunctionContext) {
  try {
    const posted = await guardPost(req, context, {
      form: 'waiver',
      maxBytes: 1024 * 1024,
      rateLimit: readSetting('WAIVER_RATE_LIMIT'),
      exempt: isKiosk,
    });
    if (!posted.ok) return await refuse(req, posted.problem, NO_SCRIPT);
    const fields = waiverFields(posted.value);
    const waiver = parse(waiverSchema, fields);
    if (!waiver.ok) return await refuse(req, waiver.problem, NO_SCRIPT);
    const received = receive('waiver', posted.value, fields, waiver.value, context);
    const signed = signedWith(waiver.value);
    if (!signed.ok) return await refuse(req, signed.problem, NO_SCRIPT);
    const queued = await storeWaiver(outbox, waiver.value, received, signed.value);
    if (!queued.ok) return await refuse(req, queued.problem, NO_SCRIPT);
    await deliver(context, outbox, queued.value);
    return answer(received, PAGES.waiverSigned);
  } catch (error) {
    return refuse(req, fault('waiver', error), NO_SCRIPT);
  }
}
