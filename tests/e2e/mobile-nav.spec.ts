import { expect, test, type Page } from '@playwright/test';

test.use({ viewport: { width: 375, height: 740 } });

const toggle = (page: Page) => page.getByRole('button', { name: 'Menu' });
const menu = (page: Page) => page.locator('#mobile-menu');

test.describe('with JavaScript', () => {
  test('loads React only once the menu is touched', async ({ page }) => {
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    await page.goto('/about', { waitUntil: 'networkidle' });
    expect(scripts).toEqual([]);
    await toggle(page).click();
    await expect(menu(page)).toBeVisible();
    await expect.poll(() => scripts.length).toBeGreaterThan(0);
  });

  test('opens, keeps aria-expanded accurate and closes when a link is chosen', async ({ page }) => {
    await page.goto('/about');
    await expect(toggle(page)).toHaveAttribute('aria-controls', 'mobile-menu');
    await toggle(page).click();
    await expect(menu(page)).toBeVisible();
    await expect(toggle(page)).toHaveAttribute('aria-expanded', 'true');
    await expect(menu(page).getByRole('link', { name: 'About' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    await menu(page).getByRole('link', { name: 'Services' }).click();
    await expect(page).toHaveURL(/\/services$/);
    await expect(menu(page)).toBeHidden();
    await expect(toggle(page)).not.toHaveAttribute('aria-expanded', 'true');
  });

  test('closes on Escape and restores focus to the toggle button', async ({ page }) => {
    await page.goto('/');
    await toggle(page).click();
    await expect(toggle(page)).toHaveAttribute('aria-expanded', 'true');
    await menu(page).getByRole('link', { name: 'Events' }).focus();
    await page.keyboard.press('Escape');
    await expect(menu(page)).toBeHidden();
    await expect(toggle(page)).toHaveAttribute('aria-expanded', 'false');
    await expect(toggle(page)).toBeFocused();
  });

  test('closes when a link to the current page is chosen', async ({ page }) => {
    await page.goto('/');
    await toggle(page).click();
    await expect(toggle(page)).toHaveAttribute('aria-expanded', 'true');
    await menu(page).getByRole('link', { name: 'Home' }).click();
    await expect(menu(page)).toBeHidden();
  });
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the toggle still opens the links and Escape closes them', async ({ page }) => {
    await page.goto('/events');
    await expect(menu(page)).toBeHidden();
    await toggle(page).click();
    await expect(menu(page)).toBeVisible();
    await expect(menu(page).getByRole('link', { name: 'Events' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    await page.keyboard.press('Escape');
    await expect(menu(page)).toBeHidden();
    await toggle(page).click();
    await menu(page).getByRole('link', { name: 'Contact' }).click();
    await expect(page).toHaveURL(/\/contact$/);
    await expect(menu(page)).toBeHidden();
  });
});
