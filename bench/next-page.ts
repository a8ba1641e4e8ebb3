/**
 * The next page at once: a visitor lands on Home on a slow phone and goes on to Services or
 * Contact. Measured on the phone of Lighthouse's mobile preset (412 x 823 at 1.75x, touch, 4x
 * slower CPU, 150 ms round trips, 1.6 Mbit/s down), applied for real (devtools throttling) as
 * bench/pad.ts does, in a fresh browser for every run: Home's own first and largest contentful
 * paint, then the visitor's way to the link in the page, then the next page's paints, taken as
 * web-vitals takes them: from the page's activation (`activationStart`) when it was prerendered,
 * from its navigation otherwise.
 *
 * The site's own rules (`public/speculation-rules.json`, "moderate") are set off as a visitor
 * sets them off, by real input events (trusted, as a finger or a mouse gives them), three ways:
 *
 * - `no rules`: a copy of the site whose rules file asks for nothing, the same finger: an
 *   ordinary navigation, what the page costs without speculation;
 * - `tap`: the finger lands on the link and lifts 100 ms later (a tap's usual length). Chromium's
 *   "moderate" starts the prerender at the touch (pointerdown) and the page is shown at the
 *   click, whatever part of it is ready by then: the least a phone visitor gets;
 * - `link at hand`: the pointer rests on the link for REST_MS before the tap. On a computer this
 *   is "moderate" as designed (a pointer held over a link for 200 ms); on a phone, Chrome for
 *   Android (138 on) starts a "moderate" prerender for a link in view once the visitor stops
 *   scrolling, which Chromium does not do under mobile emulation, so a resting pointer stands in
 *   for it here: a visitor who reads Home for a moment with the link on screen.
 *
 * Run alone: `node bench/next-page.ts [dist folder] [first of two ports]`.
 */
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../scripts/chromium.ts';
import { startStaticServer } from './static-server.ts';

export const NEXT_PAGES = ['/services', '/contact'];
export const TRIGGERS = ['no rules', 'tap', 'link at hand'] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** How long the pointer rests on the link before the tap, for `link at hand`. */
export const REST_MS = 1_000;
/** How long the finger stays on the glass in a tap. */
const TAP_MS = 100;

export interface NextPageRun {
  path: string;
  trigger: Trigger;
  /** Whether the next page was shown from a prerender (its activationStart > 0). */
  prerendered: boolean;
  /** Home's first contentful and largest contentful paint, ms from its navigation. */
  homeFcp: number;
  homeLcp: number;
  /** The next page's, ms from its activation when prerendered, else from its navigation. */
  fcp: number;
  lcp: number;
}

const PHONE = {
  width: 412,
  height: 823,
  deviceScaleFactor: 1.75,
  latencyMs: 150,
  downBytesPerSecond: (1.6 * 1024 * 1024) / 8,
  upBytesPerSecond: (750 * 1024) / 8,
  cpuSlowdown: 4,
};

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The page's FCP and LCP, in ms after its activation (its navigation when not prerendered). */
async function paints(page: Page): Promise<{ fcp: number; lcp: number; activation: number }> {
  return page.evaluate(
    () =>
      new Promise<{ fcp: number; lcp: number; activation: number }>((resolve) => {
        const navigation = performance.getEntriesByType('navigation')[0] as
          (PerformanceNavigationTiming & { activationStart?: number }) | undefined;
        const activation = navigation?.activationStart ?? 0;
        let lcp = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) lcp = Math.max(lcp, entry.startTime);
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        new PerformanceObserver((list, observer) => {
          const fcp = list.getEntriesByName('first-contentful-paint')[0];
          if (!fcp) return;
          observer.disconnect();
          // The largest paint's entries come with the next frames.
          setTimeout(
            () =>
              resolve({
                fcp: Math.max(0, fcp.startTime - activation),
                lcp: Math.max(0, Math.max(lcp, fcp.startTime) - activation),
                activation,
              }),
            500,
          );
        }).observe({ type: 'paint', buffered: true });
      }),
  );
}

/**
 * Waits until the tab shows `path`, loaded. (Puppeteer's own navigation events and `page.url()`
 * miss the activation of a prerendered page: the document itself is asked.)
 */
async function arrival(page: Page, path: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const shown = await page
      .evaluate(() => `${document.readyState} ${location.pathname}`)
      .catch(() => undefined);
    if (shown === `complete ${path}`) return;
    await wait(20);
  }
  throw new Error(`The tap did not open ${path}`);
}

async function once(
  origin: string,
  path: string,
  trigger: Trigger,
  chromePath: string,
): Promise<NextPageRun> {
  const browser = await puppeteer.launch({
    executablePath: chromePath,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  try {
    // Only the page's own DevTools session: no second one watching the Preload domain.
    const page = await browser.newPage();
    await page.setViewport({
      width: PHONE.width,
      height: PHONE.height,
      deviceScaleFactor: PHONE.deviceScaleFactor,
      isMobile: true,
      hasTouch: true,
    });
    await page.emulateCPUThrottling(PHONE.cpuSlowdown);
    await page.emulateNetworkConditions({
      download: PHONE.downBytesPerSecond,
      upload: PHONE.upBytesPerSecond,
      latency: PHONE.latencyMs,
    });
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    const home = await paints(page);
    // A link to the next page that a visitor on a phone sees in the page itself (the menu's
    // links are behind its button), brought on screen as a visitor scrolls to it.
    const link = await page.waitForSelector(`main a[href="${path}"]`, { visible: true });
    if (!link) throw new Error(`Home has no link to ${path} in its main content`);
    await link.evaluate((a) => a.scrollIntoView({ block: 'center' }));
    const box = await link.boundingBox();
    if (!box) throw new Error(`The link to ${path} is not on screen`);
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    if (trigger === 'link at hand') {
      await page.mouse.move(x, y);
      await wait(REST_MS);
    }
    const finger = await page.touchscreen.touchStart(x, y);
    await wait(TAP_MS);
    // The lift's click may swap the tab's page (a prerender's activation) before the protocol
    // answers the lift itself: its answer is not waited for, the page shown is.
    const lifted = finger.end().catch(() => undefined);
    await arrival(page, path);
    await lifted;
    const next = await paints(page);
    return {
      path,
      trigger,
      prerendered: next.activation > 0,
      homeFcp: home.fcp,
      homeLcp: home.lcp,
      fcp: next.fcp,
      lcp: next.lcp,
    };
  } finally {
    await browser.close();
  }
}

/**
 * The built site served on `port` as it is, and a copy of it on `port + 1` whose rules ask for
 * nothing (the same pages, headers and `Speculation-Rules` header).
 */
export async function startNextPageSites(dist: string, scratch: string, port: number) {
  const root = join(scratch, 'next-page-no-rules');
  await cp(dist, root, { recursive: true });
  await writeFile(join(root, 'speculation-rules.json'), '{}\n');
  const site = await startStaticServer({ root: dist, port });
  const bare = await startStaticServer({ root, port: port + 1 });
  return {
    origin: site.origin,
    noRulesOrigin: bare.origin,
    async close() {
      await site.close();
      await bare.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Home, then each next page by each trigger, `runs` times, the triggers taking turns. */
export async function measureNextPage(
  origin: string,
  noRulesOrigin: string,
  options: { runs?: number; chromePath?: string } = {},
): Promise<NextPageRun[]> {
  const chromePath = options.chromePath ?? process.env.CHROME_PATH ?? '/usr/bin/chromium';
  const results: NextPageRun[] = [];
  for (let run = 0; run < (options.runs ?? 3); run++) {
    for (const path of NEXT_PAGES) {
      for (const trigger of TRIGGERS) {
        const from = trigger === 'no rules' ? noRulesOrigin : origin;
        results.push(await once(from, path, trigger, chromePath));
      }
    }
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const [dist = 'dist', port = '8950'] = process.argv.slice(2);
  const scratch = await mkdtemp(join(tmpdir(), 'studio-next-page-'));
  const sites = await startNextPageSites(dist, scratch, Number(port));
  try {
    console.table(await measureNextPage(sites.origin, sites.noRulesOrigin, { runs: 1 }));
  } finally {
    await sites.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
