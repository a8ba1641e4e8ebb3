import { localSiteUrl, platformValue, readSetting } from './settings';

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

/**
 * The site's own origin: the one place every link in mail (sign-in links today; booking, unsubscribe
 * and re-sign links tomorrow) and the forms' accepted origin come from. `SITE_URL`; else Netlify's
 * `URL` (on Netlify the site's main address; under `npm start`, which sets it as Netlify's local
 * tools do, the address it listens on); else the address `npm start` would listen on
 * (`localSiteUrl()`).
 *
 * Never a request's own `Host`: that is the visitor's to write, and a link built from it would
 * have the studio mail a genuine sign-in link pointing at someone else's site.
 */
export function siteOrigin(): string {
  return readSetting('SITE_URL')?.origin ?? originOf(platformValue('URL')) ?? localSiteUrl();
}

/**
 * The origins a POST may come from: the site's own (`siteOrigin()`), and the addresses Netlify
 * gives the site and this deploy (`URL`, `DEPLOY_PRIME_URL`, `DEPLOY_URL`), which the platform
 * sets and no request can change.
 */
export function acceptedOrigins(): Set<string> {
  const platform = (['URL', 'DEPLOY_PRIME_URL', 'DEPLOY_URL'] as const).map((name) =>
    originOf(platformValue(name)),
  );
  return new Set([siteOrigin(), ...platform].filter((origin) => origin !== undefined));
}
