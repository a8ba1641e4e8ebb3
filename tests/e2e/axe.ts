import AxeBuilder from '@axe-core/playwright';
import { expect, type Browser, type Page } from '@playwright/test';

/** WCAG 2.2 level AA, with every earlier version and level A it includes. */
export const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export { PAGES, WIDTHS } from '../fixtures/pages';

/**
 * Runs axe on the page as it is now (any state: menu open, form errors, success notice) and
 * fails with one readable line per violation and element.
 */
export async function expectNoViolations(page: Page, options: { include?: string } = {}) {
  let builder = new AxeBuilder({ page }).withTags(WCAG_22_AA);
  if (options.include) builder = builder.include(options.include);
  const { violations } = await builder.analyze();
  const found = violations.flatMap((v) =>
    v.nodes.map((node) => `${v.id} (${v.impact}): ${v.help} — ${node.target.join(' ')}`),
  );
  expect(found, `axe found ${found.length} violation(s)`).toEqual([]);
}

/**
 * axe runs inside the page, which a page opened with JavaScript off cannot do: the same page
 * (its address and exact HTML) is opened again with scripts on, and checked there.
 */
export async function expectNoViolationsWithoutScript(browser: Browser, page: Page) {
  const url = page.url();
  const html = await page.content();
  const context = await browser.newContext({ javaScriptEnabled: true });
  try {
    const copy = await context.newPage();
    await copy.route(url, (route) => route.fulfill({ contentType: 'text/html', body: html }));
    await copy.goto(url);
    await expectNoViolations(copy);
  } finally {
    await context.close();
  }
}

export interface SmallTarget {
  element: string;
  width: number;
  height: number;
}

/**
 * Interactive targets that fail WCAG 2.5.8 (Target Size, Minimum): smaller than 24x24 CSS px,
 * not a link inside a sentence, and too close to another target for a 24 px circle around its
 * centre to stay clear of it.
 */
export async function smallTargets(page: Page): Promise<SmallTarget[]> {
  return page.evaluate(() => {
    const selector =
      'a[href], button, input, select, textarea, summary, [role="button"], [tabindex]';
    const visible = [...document.querySelectorAll<HTMLElement>(selector)].filter((el) => {
      if (el.matches('[tabindex="-1"]')) return false;
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden';
    });
    const rects = visible.map((el) => el.getBoundingClientRect());
    const inSentence = (el: HTMLElement) => {
      if (getComputedStyle(el).display !== 'inline') return false;
      const parent = el.parentElement;
      const text = [...(parent?.childNodes ?? [])]
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? '')
        .join('')
        .trim();
      return text.length > 0;
    };
    const circleHits = (cx: number, cy: number, rect: DOMRect) => {
      const dx = Math.max(rect.left - cx, 0, cx - rect.right);
      const dy = Math.max(rect.top - cy, 0, cy - rect.bottom);
      return dx * dx + dy * dy < 12 * 12;
    };
    const failures: { element: string; width: number; height: number }[] = [];
    visible.forEach((el, i) => {
      const rect = rects[i];
      if (rect.width >= 24 && rect.height >= 24) return;
      if (inSentence(el)) return;
      const cx = rect.left + rect.width / 2;
      const cy = rect.top + rect.height / 2;
      const crowded = rects.some(
        (other, j) =>
          j !== i &&
          !visible[j].contains(el) &&
          !el.contains(visible[j]) &&
          circleHits(cx, cy, other),
      );
      if (crowded) {
        failures.push({
          element: el.outerHTML.slice(0, 120),
          width: Math.round(rect.width),
          height: Math.round(rect.height),
        });
      }
    });
    return failures;
  });
}
