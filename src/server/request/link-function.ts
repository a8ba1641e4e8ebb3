import { DatabaseUnavailableError } from '../platform/db';
import { refusalOf, type ProblemPage, type Refused } from './pages';

/** A fault behind a mailed link: an outage (503, try again in 30 s) or anything else (500). */
export interface LinkFault {
  outage: boolean;
  status: 500 | 503;
  headers?: Record<string, string>;
}

/**
 * The answer to a fault behind a mailed link, logged by name only: an outage (503, try again in
 * 30 s) or anything else (500), in the words `faultPage` gives it.
 */
export function linkFault(
  path: string,
  error: unknown,
  faultPage: (fault: LinkFault) => ProblemPage,
): Refused {
  const outage = error instanceof DatabaseUnavailableError;
  console.error(
    `${path} failed (${outage ? 'the database is unavailable' : (error as Error)?.name})`,
  );
  return refusalOf(
    faultPage(
      outage ? { outage, status: 503, headers: { 'retry-after': '30' } } : { outage, status: 500 },
    ),
  );
}
