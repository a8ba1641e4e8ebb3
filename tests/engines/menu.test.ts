import { describe, expect, it } from 'vitest';
import type { EnginePage } from './browsers.ts';
import {
  NAV_LABELS,
  SCREENSHOTS,
  WAIT,
  consoleErrors,
  find,
  selectedEngines,
  useEngine,
  useSite,
} from './site.ts';

const site = useSite();

const toggle = (page: EnginePage) => find(page, { role: 'button', name: 'Menu' });

/** The list the Menu button controls (its `aria-controls`), shown or not. */
async function menuOf(page: EnginePage) {
  const menu = await page.evaluateElement(
    (button: Element) => document.getElementById(button.getAttribute('aria-controls') ?? ''),
    (await toggle(page)) as never,
  );
  if (!menu) throw new Error('The Menu button controls no element');
  return menu;
}

async function menuShown(page: EnginePage) {
  return page.evaluate(
    (menu: Element) => menu.checkVisibility() && menu.getBoundingClientRect().height > 0,
    (await menuOf(page)) as never,
  );
}

/** The names of the links shown in the menu. */
async function menuLinks(page: EnginePage) {
  const links = await page.findAll({ role: 'link' }, await menuOf(page));
  return page.evaluate(
    (...elements: Element[]) =>
      elements.map((link) => (link.textContent ?? '').replace(/\s+/g, ' ').trim()),
    ...(links as never[]),
  );
}

const expanded = async (page: EnginePage) =>
  page.evaluate(
    (button: Element) => button.getAttribute('aria-expanded'),
    (await toggle(page)) as never,
  );

for (const engineName of selectedEngines()) {
  for (const javaScript of [true, false]) {
    describe(`${engineName}, ${javaScript ? 'with' : 'without'} scripts, the phone menu at 375 px`, () => {
      const browser = useEngine(engineName, { javaScript });

      async function openMenu(path: string) {
        const page = await browser.open(375);
        await page.goto(site.url(path));
        expect(await menuShown(page)).toBe(false);
        await page.click(await toggle(page));
        await expect.poll(() => menuShown(page), WAIT).toBe(true);
        // The popover opens before any script; the island hydrates on that first touch and then
        // keeps aria-expanded accurate. The tests with scripts are about the hydrated menu.
        if (javaScript) await expect.poll(() => expanded(page), WAIT).toBe('true');
        return page;
      }

      it('opens from the Menu button and shows the six links', async () => {
        const page = await openMenu('/about');
        expect(await menuLinks(page)).toEqual(NAV_LABELS);
        await page.screenshot(
          `${SCREENSHOTS}/${engineName}${javaScript ? '' : '-noscript'}/375/menu-open.png`,
        );
        const { recorded, native } = await consoleErrors(page, { javaScript });
        expect([...recorded, ...native]).toEqual([]);
      });

      it('closes when a link to another page is chosen, and that page opens', async () => {
        const page = await openMenu('/about');
        await page.click(await find(page, { role: 'link', name: 'Services' }, await menuOf(page)));
        await expect.poll(() => page.url(), WAIT).toMatch(/\/services$/);
        await find(page, { role: 'heading', level: 1, name: { regex: '\\S' } });
        expect(await menuShown(page)).toBe(false);
        const { recorded, native } = await consoleErrors(page, { javaScript });
        expect([...recorded, ...native]).toEqual([]);
      });

      if (javaScript) {
        it('closes when the link to the page already open is chosen', async () => {
          const page = await openMenu('/');
          await page.click(await find(page, { role: 'link', name: 'Home' }, await menuOf(page)));
          await expect.poll(() => menuShown(page), WAIT).toBe(false);
        });
      }

      it(`closes on Escape${javaScript ? ' and gives the focus back to the Menu button' : ''}`, async () => {
        const page = await openMenu('/events');
        await page.press('Escape');
        await expect.poll(() => menuShown(page), WAIT).toBe(false);
        if (javaScript) {
          const button = await toggle(page);
          await expect
            .poll(
              () => page.evaluate((b: Element) => document.activeElement === b, button as never),
              WAIT,
            )
            .toBe(true);
          await expect.poll(() => expanded(page), WAIT).toBe('false');
        }
      });
    });
  }
}
