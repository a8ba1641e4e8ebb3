/**
 * A page that arrives in pieces, as on a slow phone network: the first piece ends inside the
 * header's menu, the rest comes a moment later. Nothing the browser has drawn may move when the
 * rest arrives (src/components/BaseHead.astro holds the first paint until the header is whole).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { PAGES, WIDTHS } from '../fixtures/pages';

/** Serves the site through itself, each page in two pieces cut after the menu's first link. */
async function inPieces(site: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (request, response) => {
    const answer = await fetch(new URL(request.url ?? '/', site), { redirect: 'manual' });
    const headers = Object.fromEntries(
      [...answer.headers].filter(
        ([name]) => !['content-encoding', 'content-length'].includes(name),
      ),
    );
    response.writeHead(answer.status, headers);
    const body = Buffer.from(await answer.arrayBuffer());
    const cut = (answer.headers.get('content-type') ?? '').startsWith('text/html')
      ? body.indexOf('</li>', body.indexOf('aria-label="Main"'))
      : -1;
    if (cut < 0) return void response.end(body);
    response.write(body.subarray(0, cut));
    setTimeout(() => response.end(body.subarray(cut)), 400);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

for (const width of WIDTHS) {
  test(`at ${width} px, a page arriving in pieces moves nothing as the rest arrives`, async ({
    browser,
    baseURL,
  }) => {
    const { url, server } = await inPieces(baseURL!);
    try {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      await context.addInitScript(() => {
        const shifts: string[] = [];
        (window as unknown as { shifts: string[] }).shifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & {
            value: number;
            sources: { node?: Node }[];
          })[]) {
            const moved = entry.sources.map((s) => s.node?.textContent?.trim().slice(0, 40));
            shifts.push(`${entry.value.toFixed(5)} (${moved.join(', ')})`);
          }
        }).observe({ type: 'layout-shift', buffered: true });
      });
      const page = await context.newPage();
      const shifted: string[] = [];
      for (const { path } of PAGES) {
        await page.goto(url + path);
        // The header is drawn whole: every link of the menu is there.
        await expect(page.locator('header nav[aria-label="Main"]')).toContainText('Waiver');
        const shifts = await page.evaluate(async () => {
          for (let i = 0; i < 2; i++) await new Promise((done) => requestAnimationFrame(done));
          return (window as unknown as { shifts: string[] }).shifts;
        });
        shifted.push(...shifts.map((shift) => `${path}: ${shift}`));
      }
      await context.close();
      expect(shifted).toEqual([]);
    } finally {
      server.close();
    }
  });
}
