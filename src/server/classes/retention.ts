/**
 * How long class dates are kept, with their places and waitlists: the retention run's rule for
 * this folder's tables (retention/rules.ts applies it in its order).
 */
import { rowsOf, type RetentionRule } from '../retention/rows';

export const CLASS_RULES: readonly RetentionRule[] = [
  rowsOf({
    // A class date with its places (who booked, paid, came) and its waitlist: they cascade.
    name: 'classes',
    period: 'classes',
    keep: '2 years',
    what: [
      'class date with its places and waitlist',
      'class dates with their places and waitlists',
    ],
    from: 'from the class',
    table: 'class_dates',
    where: 't.ends_at < $1',
  }),
];
