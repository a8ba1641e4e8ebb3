import { expect, test, type Page } from '@playwright/test';
import { expectNoViolations, PAGES, smallTargets, WIDTHS } from './axe';

const openMenu = async (page: Page) => {
  await page.getByRole('button', { name: 'Menu' }).click();
  await expect(page.locator('#mobile-menu')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'true');
};

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    for (const { name, path } of PAGES) {
      test(`${name} has no WCAG 2.2 AA violations`, async ({ page }) => {
        await page.goto(path);
        await expectNoViolations(page);
      });

      test(`${name} has no interactive target under 24x24 px without room around it`, async ({
        page,
      }) => {
        await page.goto(path);
        expect(await smallTargets(page)).toEqual([]);
      });
    }
  });
}

test.describe('with the mobile menu open', () => {
  test.use({ viewport: { width: 375, height: 800 } });

  for (const { name, path } of PAGES) {
    test(`${name} has no WCAG 2.2 AA violations and no small targets`, async ({ page }) => {
      await page.goto(path);
      await openMenu(page);
      await expectNoViolations(page);
      expect(await smallTargets(page)).toEqual([]);
    });
  }
});

/** How the focused element shows its focus: an outline or a box shadow, or `null`. */
const focusIndicator = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const outline =
      style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2
        ? `outline ${style.outlineWidth} ${style.outlineStyle} ${style.outlineColor}`
        : null;
    const shadow = style.boxShadow !== 'none' ? `box-shadow ${style.boxShadow}` : null;
    const rect = el.getBoundingClientRect();
    return {
      label: (el.textContent ?? '').trim() || el.getAttribute('aria-label') || el.tagName,
      indicator: outline ?? shadow,
      inView: rect.bottom > 0 && rect.top < innerHeight && rect.width > 0 && rect.height > 0,
      inHeader: !!el.closest('header'),
    };
  });

test.describe('focus is always visible', () => {
  test('tabbing through the skip link and the header at 1280 px shows a ring on each stop', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/about');
    const stops: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const focused = await focusIndicator(page);
      expect(focused, `Tab ${i + 1} focused nothing`).not.toBeNull();
      if (i > 0 && !focused!.inHeader) break;
      expect(focused!.indicator, `no visible focus on "${focused!.label}"`).not.toBeNull();
      expect(focused!.inView, `"${focused!.label}" is focused out of view`).toBe(true);
      stops.push(focused!.label);
    }
    expect(stops).toEqual([
      'Skip to content',
      'Still Point Pilates',
      'Home',
      'About',
      'Services',
      'Events',
      'Contact',
      'Waiver',
    ]);
  });

  test('at 375 px the menu toggle and every link in the open menu show a ring', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto('/');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const toggle = await focusIndicator(page);
    expect(toggle?.label).toBe('Menu');
    expect(toggle?.indicator).not.toBeNull();
    await page.keyboard.press('Enter');
    await expect(page.locator('#mobile-menu')).toBeVisible();
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      const link = await focusIndicator(page);
      expect(link?.indicator, `no visible focus on "${link?.label}"`).not.toBeNull();
      expect(link?.inView).toBe(true);
    }
  });

  test('links in the footer and the calls to action show a ring on the dark background', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/');
    const link = page.getByRole('contentinfo').getByRole('link', { name: 'About', exact: true });
    await link.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const style = await link.evaluate((el) => getComputedStyle(el).outlineColor);
    expect(style).toBe('rgb(255, 255, 255)');
  });
});
