/**
 * The headings' own face: Spectral SemiBold, cut to the headings' characters and served by the
 * site itself (src/integrations/heading-face.ts). A page is first drawn in the fallback face; the
 * face is named half a second later (an animation of `--font-serif`, src/styles/theme.css), so it
 * is requested only after the first paint, and swaps in without moving anything: the fallback face
 * (Times New Roman Bold, or Noto Serif Bold on Android) is sized so that every heading takes the
 * same lines and starts at the same place in either.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { PAGES, WIDTHS } from '../fixtures/pages';

const FACE = '/fonts/headings.woff2';

/** The fonts Chromium drew an element's text with, as the platform names them. */
async function drawnWith(page: Page, selector: string): Promise<string[][]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
  const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector });
  const drawn = [];
  for (const nodeId of nodeIds) {
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    drawn.push(fonts.map((font) => `${font.familyName}${font.isCustomFont ? ' (web)' : ''}`));
  }
  await cdp.detach();
  return drawn;
}

/** The elements set in the headings' face, visible, with their text. */
const SERIF = 'h1, h2, h3, .font-serif';

/** Until the page names the face (half a second after it is first styled), and it is drawn. */
async function faceNamed(page: Page) {
  await page.waitForFunction(() =>
    getComputedStyle(document.documentElement)
      .getPropertyValue('--font-serif')
      .startsWith('Spectral'),
  );
  await page.evaluate(() => document.fonts.ready);
}

test('the face comes from the site, small, never preloaded, asked for after the first paint', async ({
  page,
  request,
}) => {
  const fonts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'font') fonts.push(new URL(r.url()).pathname);
  });
  await page.goto('/');
  await faceNamed(page);
  await page.waitForLoadState('networkidle');
  expect(fonts).toEqual([FACE]);
  expect(await page.locator('link[rel="preload"]').count()).toBe(0);
  const { faces, firstPaint, asked } = await page.evaluate((face) => {
    const timing = performance.getEntriesByType('resource').find((r) => r.name.endsWith(face));
    return {
      faces: [...document.fonts].map((f) => `${f.family} ${f.weight} ${f.display} ${f.status}`),
      firstPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      asked: timing?.startTime,
    };
  }, FACE);
  expect(faces).toContain('Spectral 600 swap loaded');
  // Asked for after the first paint, so never among the requests the first paint waits for.
  expect(firstPaint).toBeGreaterThan(0);
  expect(asked).toBeGreaterThan(firstPaint!);
  const file = await request.get(FACE);
  expect(file.status()).toBe(200);
  expect(file.headers()['content-type']).toBe('font/woff2');
  expect((await file.body()).length).toBeLessThan(5 * 1024);
  expect(file.headers()['cache-control']).toBe(
    'public, max-age=86400, stale-while-revalidate=604800',
  );
});

test('once the face is at hand, every page draws its headings in the face alone', async ({
  page,
}) => {
  const wrong: string[] = [];
  let inFaceAlone = 0;
  for (const { path } of PAGES) {
    await page.goto(path);
    await faceNamed(page);
    const elements = await page.locator(SERIF).evaluateAll((elements) =>
      elements.map((e) => ({
        text: e.textContent?.trim() ?? '',
        inFace: getComputedStyle(e).fontFamily.startsWith('Spectral'),
      })),
    );
    const drawn = await drawnWith(page, SERIF);
    drawn.forEach((fonts, i) => {
      const { text, inFace } = elements[i]!;
      // Every character in the face: none left to the fallback.
      if (inFace && text && fonts.length > 0 && fonts.join() !== 'Spectral SemiBold (web)') {
        wrong.push(`${path} "${text}": ${fonts.join(', ')}`);
      } else if (inFace && text && fonts.length > 0) inFaceAlone++;
    });
  }
  expect(wrong).toEqual([]);
  expect(inFaceAlone).toBeGreaterThan(PAGES.length);
});

/**
 * Noto Serif Bold (SIL Open Font License, tests/fixtures/fonts/OFL.txt), the Latin file
 * @fontsource/noto-serif ships: Android's serif at a weight of 600, which a phone has as its own
 * file; here it stands in for that file, loaded as a web face.
 */
const NOTO = readFileSync(
  new URL('../fixtures/fonts/noto-serif-bold-latin.woff2', import.meta.url),
);

/**
 * What moves on every page when the face replaces a fallback, at one width: the headings whose
 * lines or height differ, those in the first screen whose text starts elsewhere (by the 3 px a
 * layout shift counts), and the page's height. The fallback is the site's 'Spectral fallback'
 * (Times New Roman Bold here, Liberation Serif Bold on Linux) or, with `noto`, the site's
 * 'Spectral fallback Noto' faces as its stylesheet declares them, drawn from the Noto file above.
 */
async function movedFrom(page: Page, width: number, noto?: Buffer): Promise<string[]> {
  await page.setViewportSize({ width, height: 800 });
  const moved: string[] = [];
  for (const { path } of PAGES) {
    await page.goto(path);
    await faceNamed(page);
    const changes = await page.evaluate(
      async ({ selector, noto }) => {
        await document.fonts.ready;
        const elements = [...document.querySelectorAll<HTMLElement>(selector)].filter(
          (e) =>
            e.getClientRects().length > 0 && getComputedStyle(e).fontFamily.startsWith('Spectral'),
        );
        if (elements.length === 0) return ['no heading is set in Spectral'];
        let family = "'Spectral fallback', serif";
        if (noto) {
          // The site's Noto faces, each with its own range and overrides, from the Noto file.
          const rules = [...document.styleSheets]
            .flatMap((sheet) => [...sheet.cssRules])
            .filter(
              (rule): rule is CSSFontFaceRule =>
                rule instanceof CSSFontFaceRule &&
                rule.style.getPropertyValue('font-family').replace(/["']/g, '') ===
                  'Spectral fallback Noto',
            );
          if (rules.length === 0) return ["the site's CSS declares no 'Spectral fallback Noto'"];
          const file = Uint8Array.from(atob(noto), (c) => c.charCodeAt(0));
          for (const { style } of rules) {
            const descriptor = (name: string) => style.getPropertyValue(name) || undefined;
            // size-adjust is a descriptor Chromium takes, which TypeScript's DOM types lack.
            const descriptors: FontFaceDescriptors & { sizeAdjust?: string } = {
              style: descriptor('font-style'),
              weight: descriptor('font-weight'),
              unicodeRange: descriptor('unicode-range'),
              sizeAdjust: descriptor('size-adjust'),
              ascentOverride: descriptor('ascent-override'),
              descentOverride: descriptor('descent-override'),
              lineGapOverride: descriptor('line-gap-override'),
            };
            document.fonts.add(await new FontFace('Noto stand-in', file, descriptors).load());
          }
          family = "'Noto stand-in', serif";
        }
        const lines = (e: HTMLElement) => {
          const range = document.createRange();
          range.selectNodeContents(e);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        };
        const start = (e: HTMLElement) => {
          const range = document.createRange();
          range.selectNodeContents(e);
          const first = range.getClientRects()[0];
          return first ? { left: first.left, top: first.top } : { left: 0, top: 0 };
        };
        const measure = () => ({
          lines: elements.map(lines),
          heights: elements.map((e) => e.getBoundingClientRect().height),
          starts: elements.map(start),
          page: document.documentElement.scrollHeight,
        });
        // Face, fallback, face again: a page that changed meanwhile for its own reasons (an
        // island drawn, a list filled in) is measured again, so only the faces differ.
        let face = measure();
        let fallback = face;
        for (let attempt = 0; attempt < 3; attempt++) {
          for (const e of elements) e.style.fontFamily = family;
          await document.fonts.ready;
          fallback = measure();
          for (const e of elements) e.style.fontFamily = '';
          await document.fonts.ready;
          const again = measure();
          if (JSON.stringify(again) === JSON.stringify(face)) break;
          if (attempt === 2) return ['the page kept changing while it was measured'];
          face = again;
        }
        return [
          ...elements
            .map((e, i) => {
              const [a, b] = [face.starts[i]!, fallback.starts[i]!];
              const shifted =
                a.top < innerHeight &&
                (Math.abs(a.left - b.left) >= 3 || Math.abs(a.top - b.top) >= 3);
              return face.lines[i] !== fallback.lines[i] ||
                Math.abs(face.heights[i]! - fallback.heights[i]!) > 0.5 ||
                shifted
                ? `"${e.textContent?.trim()}" ${face.lines[i]} lines, ${face.heights[i]} px, from (${Math.round(a.left)}, ${Math.round(a.top)}) in the face; ${fallback.lines[i]} lines, ${fallback.heights[i]} px, from (${Math.round(b.left)}, ${Math.round(b.top)}) in the fallback`
                : '';
            })
            .filter(Boolean),
          ...(face.page === fallback.page
            ? []
            : [`the page ${face.page} px in the face, ${fallback.page} px in the fallback`]),
        ];
      },
      { selector: SERIF, noto: noto?.toString('base64') },
    );
    moved.push(...changes.map((change) => `${path}: ${change}`));
  }
  return moved;
}

for (const width of WIDTHS) {
  test(`at ${width} px, every heading takes the same lines in the face and in its fallback`, async ({
    page,
  }) => {
    expect(await movedFrom(page, width)).toEqual([]);
  });
}

/** The two widths, and the narrowest and widest of the common Android phones. */
const ANDROID_WIDTHS = [...new Set([360, ...WIDTHS, 412])].sort((a, b) => a - b);

for (const width of ANDROID_WIDTHS) {
  test(`at ${width} px, every heading takes the same lines in the face and in Android's fallback, Noto Serif`, async ({
    page,
  }) => {
    expect(await movedFrom(page, width, NOTO)).toEqual([]);
  });
}

for (const width of WIDTHS) {
  test(`at ${width} px, the face swaps in on every page without a layout shift`, async ({
    browser,
  }) => {
    // A fresh browser each: the face comes from the network, after the page's first paint.
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
      await page.goto(path);
      await faceNamed(page);
      // Two frames after the face is drawn, so its shift (if any) is observed.
      const shifts = await page.evaluate(async () => {
        for (let i = 0; i < 2; i++) await new Promise((done) => requestAnimationFrame(done));
        return (window as unknown as { shifts: string[] }).shifts;
      });
      expect(
        await page.evaluate(() =>
          [...document.fonts].some((f) => f.family === 'Spectral' && f.status === 'loaded'),
        ),
      ).toBe(true);
      shifted.push(...shifts.map((shift) => `${path}: ${shift}`));
    }
    await context.close();
    expect(shifted).toEqual([]);
  });
}
