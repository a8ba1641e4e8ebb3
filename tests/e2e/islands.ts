import { expect, type Locator, type Page } from '@playwright/test';

/** The island of a component, e.g. `island(page, 'ContactForm')`. */
export function island(page: Page, component: string): Locator {
  return page.locator(`astro-island[component-url*="${component}"]`);
}

/**
 * The forms hydrate on the visitor's first touch (`client:interaction`): touches `control` (a
 * focus) and waits until React has taken the server-rendered island over.
 */
export async function hydrate(page: Page, component: string, control: Locator): Promise<void> {
  await control.focus();
  await expect(island(page, component)).not.toHaveAttribute('ssr');
}

/** Holds the island's script back until `release()`: the form as it is before it hydrates. */
export async function holdScript(page: Page, component: string) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/_astro/${component}*.js`, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}
