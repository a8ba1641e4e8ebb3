/**
 * The next page at once: a visitor lands on Home on a slow phone and goes on to Services or
 * Contact. Measured on the phone of Lighthouse's mobile preset (412 x 823 at 1.75x, 4x slower
 * CPU, 150 ms round trips, 1.6 Mbit/s down), applied for real (devtools throttling) as
 * bench/pad.ts does: Home's own first and largest contentful paint, then the link to the next
 * page is clicked, and the next page's paints are taken as web-vitals takes them, from the
 * click's navigation (for a prerendered page, its activation: not from when its prerender began).
 *
 * Each path is measured twice: as the site serves it, where the click is an ordinary navigation
 * (the bench's pointer does not set off Chrome's "moderate" speculation: a synthetic hover is not
 * one, whatever its length), and from a copy of the site whose rules file asks for the two pages
 * at once (`immediate`), which is what the site's own rules do the moment a visitor's pointer
 * rests on a link or a finger presses it: the bench waits for that prerender, then clicks.
 *
 * Run alone: `node bench/next-page.ts [origin] [origin with the pages prerendered]`.
 */
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../scripts/chromium.ts';
import { startStaticServer } from './static-server.ts';

export interface NextPageRun {
  path: string;
  /** Whether the next page was shown from a prerender (its activationStart > 0). */
  prerendered: boolean;
  /** Home's first contentful and largest contentful paint, ms from its navigation. */
  homeFcp: number;
  homeLcp: number;
  /** The next page's, ms from the click's navigation (its activation when prerendered). */
  fcp: number;
  lcp: number;
}

export const NEXT_PAGES = ['/services', '/contact'];

const PHONE = {
  width: 412,
  height: 823,
  deviceScaleFactor: 1.75,
  latencyMs: 150,
  downBytesPerSecond: (1.6 * 1024 * 1024) / 8,
  upBytesPerSecond: (750 * 1024) / 8,
  cpuSlowdown: 4,
};

/** How long the bench gives the prerender of the next page (it cannot watch it: see below). */
const PRERENDER_WAIT_MS = 4_000;

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

async function once(
  origin: string,
  path: string,
  prerender: boolean,
  chromePath: string,
): Promise<NextPageRun> {
  const browser = await puppeteer.launch({
    executablePath: chromePath,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  try {
    // Only the page's own DevTools session: a second one (to watch the Preload domain, or to
    // throttle through it) makes Chrome refuse the prerender (PrerenderingDisabledByDevTools).
    const page = await browser.newPage();
    await page.setViewport({
      width: PHONE.width,
      height: PHONE.height,
      deviceScaleFactor: PHONE.deviceScaleFactor,
      isMobile: true,
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
    // links are behind its button).
    const link = `main a[href="${path}"]`;
    await page.waitForSelector(link, { visible: true });
    await page.$eval(link, (a) => a.scrollIntoView({ block: 'center' }));
    await page.hover(link);
    if (prerender) await new Promise((resolve) => setTimeout(resolve, PRERENDER_WAIT_MS));
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(link)]);
    const next = await paints(page);
    return {
      path,
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
 * A copy of the built site whose rules prerender the next pages at once, served on `port`.
 */
export async function startPrerenderedCopy(dist: string, scratch: string, port: number) {
  const root = join(scratch, 'next-page-site');
  await cp(dist, root, { recursive: true });
  await writeFile(
    join(root, 'speculation-rules.json'),
    JSON.stringify({ prerender: [{ urls: NEXT_PAGES, eagerness: 'immediate' }] }),
  );
  const server = await startStaticServer({ root, port });
  return {
    origin: server.origin,
    async close() {
      await server.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Home, then each next page, `runs` times: as served, and prerendered (`prerenderedOrigin`). */
export async function measureNextPage(
  origin: string,
  prerenderedOrigin: string,
  options: { runs?: number; chromePath?: string } = {},
): Promise<{ served: NextPageRun[]; prerendered: NextPageRun[] }> {
  const chromePath = options.chromePath ?? process.env.CHROME_PATH ?? '/usr/bin/chromium';
  const served: NextPageRun[] = [];
  const prerendered: NextPageRun[] = [];
  for (let run = 0; run < (options.runs ?? 3); run++) {
    for (const path of NEXT_PAGES) {
      served.push(await once(origin, path, false, chromePath));
      prerendered.push(await once(prerenderedOrigin, path, true, chromePath));
    }
  }
  return { served, prerendered };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [origin = 'http://127.0.0.1:8950', prerenderedOrigin = origin] = process.argv.slice(2);
  console.log(await measureNextPage(origin, prerenderedOrigin, { runs: 1 }));
}
