import { describe, expect, it } from 'vitest';
import {
  PAGES,
  SCREENSHOTS,
  WIDTHS,
  consoleErrors,
  find,
  overflow,
  selectedEngines,
  useEngine,
  useSite,
  viewWholePage,
} from './site.ts';

const site = useSite();

for (const engineName of selectedEngines()) {
  describe(`${engineName}, with scripts`, () => {
    const browser = useEngine(engineName, { javaScript: true });

    for (const width of WIDTHS) {
      for (const { name, path, heading } of PAGES) {
        it(`${name} (${path}) renders its heading at ${width} px${width === 375 ? ' without sideways scrolling' : ''}, logs no error${path === '/no-such-page' ? ' but its path' : ''}, and is photographed`, async () => {
          const page = await browser.open(width);
          await page.goto(site.url(path));
          await find(page, { role: 'heading', level: 1, name: heading ?? { regex: '\\S' } });
          if (width === 375) expect(await overflow(page)).toBeLessThanOrEqual(0);

          expect(await viewWholePage(page, { javaScript: true })).toEqual([]);
          if (width === 375) expect(await overflow(page)).toBeLessThanOrEqual(0);
          await page.screenshot(`${SCREENSHOTS}/${engineName}/${width}/${name.toLowerCase()}.png`);

          const { recorded, native } = await consoleErrors(page, { javaScript: true });
          if (path === '/no-such-page') {
            expect(recorded).toEqual([
              `${path}: 404 Error: User attempted to access non-existent route: ${path}`,
            ]);
            if (engineName !== 'webkit') {
              // Chromium's own log also reports the page's 404 status; that is the point here.
              const statusLine = /^Failed to load resource: .*\b404\b/;
              expect(native.filter((line) => !statusLine.test(line))).toEqual([
                `404 Error: User attempted to access non-existent route: ${path}`,
              ]);
            }
          } else {
            expect(recorded).toEqual([]);
            expect(native).toEqual([]);
          }
        });
      }
    }
  });
}
