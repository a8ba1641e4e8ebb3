import { platformValue, readSetting } from './settings';

/**
 * Whether this code runs as a deployed function on Netlify (or any Lambda), where the disk is
 * read-only and nothing made up locally (a key, a mail folder) would survive. Netlify's local
 * tools run functions as Lambdas too, but say they are local (NETLIFY_LOCAL, CONTEXT).
 */
export function isHostedFunction(): boolean {
  const lambda = Boolean(
    platformValue('AWS_LAMBDA_FUNCTION_NAME') || platformValue('LAMBDA_TASK_ROOT'),
  );
  return lambda && platformValue('NETLIFY_LOCAL') !== 'true' && platformValue('CONTEXT') !== 'dev';
}

/** An address's origin, or `undefined` for one that is not an address. */
const originOf = (address: string | undefined) =>
  address && URL.canParse(address) ? new URL(address).origin : undefined;

/** The site's public address: `SITE_URL`, else Netlify's `URL`; `undefined` in a local run. */
export function publicOrigin(): string | undefined {
  return readSetting('SITE_URL')?.origin ?? originOf(platformValue('URL'));
}

/**
 * Every origin the site is configured to answer at: `SITE_URL`, and the addresses Netlify gives
 * the site and this deploy (`URL`, `DEPLOY_PRIME_URL`, `DEPLOY_URL`).
 */
export function configuredOrigins(): string[] {
  const platform = (['URL', 'DEPLOY_PRIME_URL', 'DEPLOY_URL'] as const).map((name) =>
    originOf(platformValue(name)),
  );
  return [readSetting('SITE_URL')?.origin, ...platform].filter((origin) => origin !== undefined);
}
