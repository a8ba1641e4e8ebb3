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

    // The headings' face (Spectral) arrives after the first paint over a fallback matched to it
    // (src/styles/theme.css): no heading may take another line when it does, or the page moves
    // under a visitor's finger. WebKitGTK matches local() faces by family name only and rounds the
    // adjusted size, so this is checked here as well as in Chromium (tests/e2e/fonts.spec.ts).
    for (const width of WIDTHS) {
      it(`every heading of every page keeps its height at ${width} px when the headings' face replaces its fallback`, async () => {
        const moved: string[] = [];
        for (const { path } of PAGES) {
          const page = await browser.open(width);
          await page.goto(site.url(path));
          expect(
            await page.evaluate(() =>
              document.fonts.load('600 20px Spectral').then((faces) => faces.length),
            ),
          ).toBeGreaterThan(0);
          const heights = (stack: string) =>
            page.evaluate((value: string) => {
              const root = document.documentElement;
              root.style.animation = 'none';
              root.style.setProperty('--font-serif', value);
              return [...document.querySelectorAll('h1, h2, h3, h4')].map(
                (heading) => heading.getBoundingClientRect().height,
              );
            }, stack);
          const fallback = await heights("'Spectral fallback', 'Spectral fallback Noto', serif");
          const face = await heights(
            "Spectral, 'Spectral fallback', 'Spectral fallback Noto', serif",
          );
          expect(face).toHaveLength(fallback.length);
          fallback.forEach((height, i) => {
            if (Math.abs(height - face[i]!) >= 3)
              moved.push(`${path} heading ${i + 1}: ${height} -> ${face[i]} px`);
          });
        }
        expect(moved).toEqual([]);
      });
    }

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
