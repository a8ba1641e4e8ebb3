import type { Queryable } from '../platform/db';
import { normalEmail } from '../auth/staff';
import { readSetting } from '../platform/settings';
import { countRequest } from '../request/rate-limit';

/**
 * The participant's copy goes to whatever address was typed into the form, which nobody has
 * verified: so one address gets at most WAIVER_COPY_LIMIT copies a day, wherever the waivers come
 * from. Past it the waiver is stored and the studio gets its records copy as always; only the
 * participant's copy is held back, and the outbox records it as such (`recipient-limit`).
 *
 * Counted in the waiver's own transaction (a waiver that is not stored spends nothing), under a
 * keyed hash of the address in any case, like the rate limits' clients.
 */
export async function holdBackCopy(tx: Queryable, email: string): Promise<string | undefined> {
  const verdict = await countRequest(
    'waiver-participant-copy',
    normalEmail(email),
    readSetting('WAIVER_COPY_LIMIT'),
    tx,
  );
  return verdict.allowed ? undefined : 'recipient-limit';
}
