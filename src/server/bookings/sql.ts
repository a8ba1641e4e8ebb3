/**
 * SQL that every owner of a priced booking's table writes alike, so a session and a place are
 * recorded paid at the studio the same way.
 */
import { sqlNow } from '../platform/clock';

/** The SET of a booking recorded paid at the studio by $2, or due again when $2 is NULL. */
export const paidAtStudioSet = () =>
  `payment = CASE WHEN $2::text IS NULL THEN 'due' ELSE 'paid' END,
   paid_at = CASE WHEN $2::text IS NULL THEN NULL ELSE ${sqlNow()} END, paid_by = $2,
   updated_at = ${sqlNow()}`;
