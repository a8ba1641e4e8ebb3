import { expect, test, type Page } from '@playwright/test';
import { PAGES } from './axe';

/** The address the site was built for, as astro.config.mjs reads it. */
const SITE_URL = process.env.SITE_URL ?? process.env.URL ?? 'http://127.0.0.1:8888';
const INDEXED = PAGES.filter((p) => p.name !== '404');

interface Head {
  path: string;
  title: string;
  description: string | null;
  canonical: string | null;
  ogTitle: string | null;
  ogDescription: string | null;
  ogImage: string | null;
  ogUrl: string | null;
  twitterCard: string | null;
  robots: string | null;
}

async function readHead(page: Page, path: string): Promise<Head> {
  await page.goto(path);
  const head = await page.evaluate(() => {
    const content = (selector: string) =>
      document.querySelector(selector)?.getAttribute('content') ?? null;
    return {
      title: document.title,
      description: content('meta[name="description"]'),
      canonical: document.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? null,
      ogTitle: content('meta[property="og:title"]'),
      ogDescription: content('meta[property="og:description"]'),
      ogImage: content('meta[property="og:image"]'),
      ogUrl: content('meta[property="og:url"]'),
      twitterCard: content('meta[name="twitter:card"]'),
      robots: content('meta[name="robots"]'),
    };
  });
  return { path, ...head };
}

test('every page has its own title and meta description', async ({ page }) => {
  const heads: Head[] = [];
  for (const { path } of PAGES) heads.push(await readHead(page, path));
  for (const head of heads) {
    expect(head.title.length, `${head.path} title`).toBeGreaterThan(10);
    expect(head.title.length, `${head.path} title`).toBeLessThanOrEqual(70);
    expect(head.description?.length ?? 0, `${head.path} description`).toBeGreaterThanOrEqual(50);
    expect(head.description?.length ?? 0, `${head.path} description`).toBeLessThanOrEqual(160);
  }
  expect(new Set(heads.map((h) => h.title)).size).toBe(heads.length);
  expect(new Set(heads.map((h) => h.description)).size).toBe(heads.length);
});

for (const { name, path } of INDEXED) {
  test(`${name} has an absolute canonical URL from SITE_URL and an Open Graph card`, async ({
    page,
  }) => {
    const head = await readHead(page, path);
    const expected = new URL(path, SITE_URL).href;
    expect(head.canonical).toBe(expected);
    expect(head.canonical).not.toMatch(/\.html$/);
    expect(head.ogUrl).toBe(expected);
    expect(head.ogTitle).toBe(head.title);
    expect(head.ogDescription).toBe(head.description);
    expect(head.ogImage).toMatch(new RegExp(`^${SITE_URL.replace(/[.]/g, '\\.')}/.+\\.png$`));
    expect(head.twitterCard).toBe('summary_large_image');
    expect(head.robots ?? '').not.toMatch(/noindex/);
  });
}

test('the Open Graph image is a 1200x630 PNG the server sends', async ({ page, request }) => {
  const head = await readHead(page, '/');
  const image = await request.get(new URL(head.ogImage!).pathname);
  expect(image.status()).toBe(200);
  expect(image.headers()['content-type']).toBe('image/png');
  const png = await image.body();
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  await expect(page.locator('meta[property="og:image:alt"]')).toHaveAttribute('content', /.+/);
  await expect(page.locator('meta[name="twitter:image"]')).toHaveAttribute(
    'content',
    head.ogImage!,
  );
});

test('the 404 page is noindex and names no canonical URL', async ({ page }) => {
  const head = await readHead(page, '/no-such-page');
  expect(head.robots).toMatch(/noindex/);
  expect(head.canonical).toBeNull();
});

test('the sitemap lists the six pages, and not the 404 page', async ({ request }) => {
  const index = await (await request.get('/sitemap-index.xml')).text();
  const sitemaps = [...index.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]).pathname);
  expect(sitemaps.length).toBeGreaterThan(0);
  const urls: string[] = [];
  for (const sitemap of sitemaps) {
    const xml = await (await request.get(sitemap)).text();
    urls.push(...[...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]));
  }
  expect(urls.sort()).toEqual(INDEXED.map((p) => new URL(p.path, SITE_URL).href).sort());
});

test('robots.txt allows crawling and points at the sitemap', async ({ request }) => {
  const response = await request.get('/robots.txt');
  expect(response.status()).toBe(200);
  const text = await response.text();
  expect(text).toMatch(/^User-agent: \*$/m);
  expect(text).not.toMatch(/^Disallow: \/$/m);
  expect(text).toContain(`Sitemap: ${new URL('/sitemap-index.xml', SITE_URL).href}`);
});
