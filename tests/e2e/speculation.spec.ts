/**
 * The next page at once: every page names the site's speculation rules in a `Speculation-Rules`
 * header (no script in the page: the rules are a JSON file of the site's own), which ask the
 * browser to prerender a page the visitor is about to open, with "moderate" eagerness only (a
 * link held under the pointer for a moment, or pressed), never the records desk, the functions'
 * endpoints, the list's links or a calendar file. Chromium accepts the rules under the site's
 * own Content-Security-Policy and counts the pages a visitor goes on to among their candidates.
 * (The bench measures the second page's paint: `npm run bench`, bench/next-page.ts.)
 */
import { expect, test } from '@playwright/test';
import { PAGES } from '../fixtures/pages';

const RULES = '/speculation-rules.json';

interface Rule {
  eagerness?: string;
  urls?: string[];
  where?: unknown;
}

test('every page names the rules in a header, a JSON file of the site served as speculation rules', async ({
  request,
}) => {
  for (const { path } of PAGES) {
    const page = await request.get(path);
    expect(page.headers()['speculation-rules'], path).toBe(`"${RULES}"`);
    // No inline rules: nothing a page carries for the Content-Security-Policy to allow.
    expect(await page.text(), path).not.toMatch(/<script[^>]*speculationrules/i);
  }
  const file = await request.get(RULES);
  expect(file.status()).toBe(200);
  expect(file.headers()['content-type']).toBe('application/speculationrules+json');
  const rules = (await file.json()) as { prerender?: Rule[]; prefetch?: Rule[] };
  expect(rules.prefetch).toBeUndefined();
  expect(rules.prerender?.length).toBeGreaterThan(0);
  // Only what the visitor is about to open: no list of pages loaded up front.
  for (const rule of rules.prerender!) {
    expect(rule.eagerness).toBe('moderate');
    expect(rule.urls).toBeUndefined();
  }
});

test('Chromium takes the rules under the site’s own policy; the pages a visitor goes on to are candidates, the desk and the endpoints are not', async ({
  page,
}) => {
  const cdp = await page.context().newCDPSession(page);
  const ruleSets: { errorType?: string; url?: string }[] = [];
  const candidates = new Set<string>();
  cdp.on('Preload.ruleSetUpdated', ({ ruleSet }) => ruleSets.push(ruleSet));
  cdp.on('Preload.preloadingAttemptSourcesUpdated', ({ preloadingAttemptSources }) => {
    for (const source of preloadingAttemptSources) {
      candidates.add(`${source.key.action} ${new URL(source.key.url).pathname}`);
    }
  });
  await cdp.send('Preload.enable');
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy|speculation/i.test(message.text())) refused.push(message.text());
  });

  await page.goto('/');
  await expect.poll(() => ruleSets.length).toBeGreaterThan(0);
  expect(ruleSets[0]!.url).toMatch(new RegExp(`${RULES.replace('.', '\\.')}$`));
  expect(ruleSets[0]!.errorType).toBeUndefined();
  await expect
    .poll(() => [...candidates])
    .toEqual(expect.arrayContaining(['Prerender /services', 'Prerender /contact']));

  // Links to what no visitor should have opened for them: the desk, an endpoint, a calendar
  // file, a list link. The rules follow the page's links as they change.
  await page.evaluate(() => {
    for (const href of [
      '/records',
      '/records/sign-in',
      '/api/send-email',
      '/events.ics',
      '/notify/confirm',
      '/consultation/manage',
      '/waiver',
    ]) {
      const a = document.createElement('a');
      a.href = href;
      a.textContent = href;
      document.querySelector('main')!.append(a);
    }
  });
  await expect.poll(() => [...candidates]).toContain('Prerender /waiver');
  for (const candidate of candidates) {
    expect(candidate).not.toMatch(
      /\.ics$|^Prerender \/(api|records|notify|consultation\/|\.netlify)/,
    );
  }
  expect(refused).toEqual([]);
});
