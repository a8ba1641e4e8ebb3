/**
 * The next page at once: every page names the site's speculation rules in a `Speculation-Rules`
 * header (no script in the page: the rules are a JSON file of the site's own), which ask the
 * browser to prerender a public page the visitor is about to open, with "moderate" eagerness
 * only (a link held under the pointer for a moment, or pressed), never a page of one booking or
 * address (their token in the link), the records desk, an endpoint or a calendar file. Chromium
 * takes the rules under the site's own Content-Security-Policy, and the page a visitor goes on
 * to is shown from its prerender. (The bench measures the paint: `npm run bench`,
 * bench/next-page.ts.)
 */
import { expect, test, type Page } from '@playwright/test';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../../scripts/chromium';
import { PAGES } from '../fixtures/pages';
import { PAGES as PATHS } from '../../src/shared/site-paths';

const RULES = '/speculation-rules.json';

interface Rule {
  eagerness?: string;
  urls?: string[];
  where?: unknown;
}

/** Pages of one person (a token in the link) or the studio's own, and links that do things. */
const NEVER = [
  `${PATHS.sessionManage}?token=abc`,
  `${PATHS.manage}?token=abc`,
  `${PATHS.classManage}?token=abc`,
  `${PATHS.classClaim}?token=abc`,
  `${PATHS.listConfirm}?token=abc`,
  `${PATHS.listUnsubscribe}?token=abc`,
  PATHS.desk,
  PATHS.deskSignIn,
  '/api/send-email',
  '/.netlify/functions/send-email',
  '/events.ics',
  '/events/some-event.ics',
  '/list/events.json',
  PATHS.contactSent,
  PATHS.waiverSigned,
  PATHS.listSent,
];

/** Public pages a visitor may open from any page. */
const PUBLIC = ['/about', '/events', '/classes', '/consultation', '/waiver', '/book/private'];

/** Speculation candidates Chromium finds in `page` ("Prerender /path"), as it updates them. */
async function watchCandidates(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  const ruleSets: { errorType?: string; url?: string }[] = [];
  const candidates = new Set<string>();
  cdp.on('Preload.ruleSetUpdated', ({ ruleSet }) => ruleSets.push(ruleSet));
  cdp.on('Preload.preloadingAttemptSourcesUpdated', ({ preloadingAttemptSources }) => {
    for (const source of preloadingAttemptSources) {
      const url = new URL(source.key.url);
      candidates.add(`${source.key.action} ${url.pathname}${url.search}`);
    }
  });
  await cdp.send('Preload.enable');
  return { ruleSets, candidates };
}

/** Console messages about the policy or the rules, and policy violations, as they come. */
async function watchRefusals(page: Page): Promise<string[]> {
  const refused: string[] = [];
  await page.exposeFunction('reportViolation', (text: string) => refused.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportViolation(text: string): void }).reportViolation;
      report(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`);
    });
  });
  page.on('console', (message) => {
    if (/Content.Security.Policy|speculation/i.test(message.text())) refused.push(message.text());
  });
  return refused;
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
  const rules = JSON.parse(await file.text()) as { prerender?: Rule[]; prefetch?: Rule[] };
  expect(rules.prefetch).toBeUndefined();
  expect(rules.prerender?.length).toBeGreaterThan(0);
  // Only what the visitor is about to open: no list of pages loaded up front.
  for (const rule of rules.prerender!) {
    expect(rule.eagerness).toBe('moderate');
    expect(rule.urls).toBeUndefined();
  }
});

test('Chromium takes the rules under the site’s own policy: the public pages are candidates, no private page, endpoint or file', async ({
  page,
}) => {
  const { ruleSets, candidates } = await watchCandidates(page);
  const refused = await watchRefusals(page);

  await page.goto('/');
  await expect.poll(() => ruleSets.length).toBeGreaterThan(0);
  expect(ruleSets[0]!.url).toMatch(new RegExp(`${RULES.replace('.', '\\.')}$`));
  expect(ruleSets[0]!.errorType).toBeUndefined();
  await expect
    .poll(() => [...candidates])
    .toEqual(expect.arrayContaining(['Prerender /services', 'Prerender /contact']));

  // Links to pages no visitor should have opened for them, beside public ones: the rules
  // follow the page's links as they change.
  await page.evaluate(
    (hrefs) => {
      for (const href of hrefs) {
        const a = document.createElement('a');
        a.href = href;
        a.textContent = href;
        document.querySelector('main')!.append(a);
      }
    },
    [...NEVER, ...PUBLIC],
  );
  await expect
    .poll(() => [...candidates])
    .toEqual(expect.arrayContaining(PUBLIC.map((path) => `Prerender ${path}`)));
  const never = [...candidates].filter((candidate) =>
    NEVER.some((path) => candidate === `Prerender ${path}`),
  );
  expect(never).toEqual([]);
  expect(refused).toEqual([]);
});

/**
 * Chromium prerenders nothing for a tab a DevTools client is attached to without its "tab"
 * target, as Playwright attaches (`PrerenderingDisabledByDevTools`): this one visitor is driven by
 * Puppeteer, which attaches through the tab and leaves prerendering on.
 */
test('a visitor who rests the pointer on Services and opens it is shown the prerendered page, with no policy refusal', async ({
  baseURL,
}) => {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  try {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy|speculation/i.test(message.text())) {
        refused.push(message.text());
      }
    });
    // Watched from the browser's own session, which leaves the tab's prerendering on.
    const targets = await browser.target().createCDPSession();
    const prerendered = new Promise<void>((resolve) => {
      targets.on('Target.targetInfoChanged', ({ targetInfo }) => {
        if (targetInfo.subtype === 'prerender' && targetInfo.url.endsWith('/services')) resolve();
      });
    });
    await targets.send('Target.setDiscoverTargets', { discover: true, filter: [{}] });
    await page.goto(`${baseURL}/`, { waitUntil: 'load' });
    const link = await page.waitForSelector('main a[href="/services"]', { visible: true });
    // "Moderate": the pointer resting on the link for 200 ms starts the prerender, which the
    // browser lists among its targets ("prerender") once it has the page's address. The visitor
    // clicks then (a click at once would start it too, but its navigation would begin before the
    // prerender does and go to the network as usual).
    await link!.hover();
    await prerendered;
    await link!.click();
    // Puppeteer's own navigation events miss an activation: the document itself is asked.
    await expect
      .poll(() => page.evaluate(() => location.pathname).catch(() => ''))
      .toBe('/services');
    const shown = await page.evaluate(() => {
      const navigation = performance.getEntriesByType('navigation')[0] as
        (PerformanceNavigationTiming & { activationStart?: number }) | undefined;
      const h1 = document.querySelector('h1');
      return {
        prerendering: (document as Document & { prerendering?: boolean }).prerendering,
        activationStart: navigation?.activationStart ?? 0,
        heading: h1?.textContent ?? '',
        marked: document.documentElement.dataset.prerendered !== undefined,
        animation: getComputedStyle(document.documentElement).animationName,
        headingFace: h1 ? getComputedStyle(h1).fontFamily : '',
      };
    });
    // Shown now, and it was prerendered: its activation came after its own navigation began.
    expect(shown.prerendering).toBe(false);
    expect(shown.activationStart).toBeGreaterThan(0);
    expect(shown.heading).not.toBe('');
    // Its head's script marked it while it was prerendered: the headings name their face from
    // the start, with no animation left to start when it is shown (src/styles/theme.css).
    expect(shown.marked).toBe(true);
    expect(shown.animation).toBe('none');
    expect(shown.headingFace).toMatch(/^Spectral, /);
    // The face was asked for while the page was hidden, and came.
    await expect
      .poll(() =>
        page.evaluate(() =>
          [...document.fonts]
            .filter((face) => face.family === 'Spectral')
            .map((face) => face.status),
        ),
      )
      .toEqual(['loaded']);
    // A page opened the ordinary way is not marked, and names its face by the animation.
    await page.goto(`${baseURL}/contact`, { waitUntil: 'load' });
    expect(
      await page.evaluate(() => ({
        marked: document.documentElement.dataset.prerendered !== undefined,
        animation: getComputedStyle(document.documentElement).animationName,
      })),
    ).toEqual({ marked: false, animation: 'heading-face' });
    expect(refused).toEqual([]);
  } finally {
    await browser.close();
  }
});
