import type { Queryable } from '../platform/db';
import { normalEmail } from '../../shared/email';
import { readSetting } from '../platform/settings';
import { recipientLimit } from '../request/rate-limit';

/**
 * The participant's copy goes to whatever address was typed into the form, which nobody has
 * verified: so one address gets at most WAIVER_COPY_LIMIT copies a day, wherever the waivers come
 * from. Past it the waiver is stored and the studio gets its records copy as always; only the
 * participant's copy is held back, and the outbox records it as such (`recipient-limit`).
 */
export function holdBackCopy(tx: Queryable, email: string): Promise<string | undefined> {
  return recipientLimit(
    tx,
    'waiver-participant-copy',
    normalEmail(email),
    readSetting('WAIVER_COPY_LIMIT'),
  );
}
