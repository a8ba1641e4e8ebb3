import type { Config } from '@netlify/functions';
import { MIN_FILL_MS } from '../src/shared/anti-spam';
import {
  WAIVER_LABELS,
  WAIVER_SENT_PAGE,
  waiverProblemNotice,
  waiverSchema,
} from '../src/shared/waiver';
import { outbox } from '../src/server/mail-kinds';
import { formFunction } from '../src/server/request/pipeline';
import { holdBackCopy } from '../src/server/waiver/copy-limit';
import { kioskOf } from '../src/server/waiver/kiosk';
import { signedWith } from '../src/server/waiver/signature';
import { insertWaiver } from '../src/server/waiver/store';

export const config: Config = { path: '/api/submit-waiver' };

/**
 * The waiver form: `{ waiver: {...} }` (or the form's own fields, posted without script) in,
 * stored with its audit trail and the exact text signed; then its PDF to the studio's records
 * inbox and a copy with nothing typed but the first name to the participant (at most
 * WAIVER_COPY_LIMIT a day to one address).
 */
export default formFunction({
  form: 'waiver',
  maxBytes: 1024 * 1024,
  rateLimit: 'WAIVER_RATE_LIMIT',
  // The studio's kiosk (a device the desk made one): a class signs in a row from one address.
  exemptFromRateLimit: async (req) => (await kioskOf(req, { signing: true })) !== undefined,
  minFillMs: MIN_FILL_MS.waiver,
  schema: waiverSchema,
  fields: (body) => body.waiver,
  // A ticked box is posted as `on`, an unticked one not at all; an empty field as ''.
  fromForm: (body) => ({
    ...body,
    agreedToTerms: body.agreedToTerms !== undefined,
    agreedToPhotos: body.agreedToPhotos !== undefined,
    signatureKind: body.signatureKind || undefined,
  }),
  check: signedWith,
  repeatsIn: 'waivers',
  insert: insertWaiver,
  mails: ['waiver-records', 'waiver-participant'],
  holdBack: (tx, kind, waiver) =>
    kind === 'waiver-participant' ? holdBackCopy(tx, waiver.email) : Promise.resolve(undefined),
  outbox,
  noScript: {
    sentPage: WAIVER_SENT_PAGE,
    formPage: { href: '/waiver', label: 'Return to the waiver' },
    labels: WAIVER_LABELS,
    words: waiverProblemNotice,
  },
});
