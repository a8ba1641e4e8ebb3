import { mkdir } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';

/**
 * Looking at a page as a person would: at a phone's width and a desktop's, nothing wider than the
 * screen, a full-page screenshot of each in `dir` (under test-results/), then back to the size it
 * had. `looker(dir)` gives a spec its own `look(page, name)`.
 */
export function looker(dir: string) {
  return async function look(page: Page, name: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const before = page.viewportSize();
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow, `${name} is wider than ${width} px`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${dir}/${name}-${width}.png`, fullPage: true });
    }
    if (before) await page.setViewportSize(before);
  };
}
