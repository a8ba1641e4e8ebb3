/**
 * Without SITE_URL (and off Netlify), every address the site writes is the address `npm start`
 * listens on: the build's `site` (canonical, og:url, sitemap, calendar files, the Events page's
 * subscribe link) and the functions' links alike, from HOST and PORT.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { siteOrigin } from '../../src/server/platform/hosting';
import { localSiteUrl } from '../../src/server/platform/settings';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The `site` astro.config.mjs gives the build under these settings (no other setting). */
async function builtSite(env: Record<string, string>): Promise<string | undefined> {
  for (const name of ['SITE_URL', 'URL', 'HOST', 'PORT']) vi.stubEnv(name, env[name] ?? '');
  vi.resetModules();
  const { default: config } = (await import('../../astro.config.mjs')) as {
    default: { site?: string };
  };
  return config.site;
}

describe('the address the site writes without SITE_URL', () => {
  test('is where npm start listens: HOST and PORT, 127.0.0.1:8888 by default', () => {
    expect(localSiteUrl({})).toBe('http://127.0.0.1:8888');
    expect(localSiteUrl({ PORT: '9401' })).toBe('http://127.0.0.1:9401');
    expect(localSiteUrl({ HOST: 'localhost', PORT: '9401' })).toBe('http://localhost:9401');
    expect(localSiteUrl({ HOST: '::1', PORT: '9401' })).toBe('http://[::1]:9401');
    // Any free port is not known before the server listens.
    expect(localSiteUrl({ PORT: '0' })).toBe('http://127.0.0.1:8888');
  });

  test('the functions link to it', () => {
    for (const name of ['SITE_URL', 'URL', 'HOST']) vi.stubEnv(name, '');
    vi.stubEnv('PORT', '9401');
    expect(siteOrigin()).toBe('http://127.0.0.1:9401');
  });

  test('the build writes it: PORT=9401 builds pages for port 9401, SITE_URL and Netlify win', async () => {
    expect(await builtSite({ PORT: '9401' })).toBe('http://127.0.0.1:9401');
    expect(await builtSite({})).toBe('http://127.0.0.1:8888');
    expect(await builtSite({ PORT: '9401', SITE_URL: 'https://studio.example/' })).toBe(
      'https://studio.example',
    );
    expect(await builtSite({ PORT: '9401', URL: 'https://studio.netlify.app' })).toBe(
      'https://studio.netlify.app',
    );
  }, 60_000);
});
