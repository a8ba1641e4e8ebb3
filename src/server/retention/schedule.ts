/**
 * The retention schedule as the functions read it: content/retention.yaml (shipped beside them,
 * included_files in netlify.toml) through the schema the build checked it with, each rule's
 * keeping time from it or the rule's default. A name the rules do not know is an error naming
 * it: a misspelt `waviers: 10 years` must not leave waivers on the default unnoticed.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { parsePeriod, retentionSchema, type Period } from '../../shared/retention';
import { contentPath } from '../platform/paths';
import { RETENTION_RULES, type RetentionRule } from './rules';

/** When the run happens: Netlify's schedule of functions/retention.ts (UTC), the same literal. */
export const RETENTION_SCHEDULE = '0 9 * * *';

export interface Scheduled {
  rule: RetentionRule;
  period: Period;
}

/** Every rule with its keeping time, read from `file` (content/retention.yaml) every call. */
export function retentionSchedule(file = contentPath('retention.yaml')): Scheduled[] {
  let data: unknown = {};
  try {
    data = parse(readFileSync(file, 'utf8')) ?? {};
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`${file} could not be read: ${(cause as Error).message}`, { cause });
    }
  }
  const result = retentionSchema.safeParse(data);
  if (!result.success) throw new Error(`${file} is not valid:\n${z.prettifyError(result.error)}`);
  const known = new Set(RETENTION_RULES.map((rule) => rule.period));
  const unknown = Object.keys(result.data).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `${file} names ${unknown.join(', ')}, which no retention rule has (they are: ${[...known].join(', ')})`,
    );
  }
  return RETENTION_RULES.map((rule) => ({
    rule,
    period: parsePeriod(result.data[rule.period] ?? rule.keep)!,
  }));
}
