/**
 * The Events page with events and the events' own pages, in the browser. The site `npm start`
 * serves has no event (only drafts), so these pages come from a copy of the project built with
 * the test events at a fixed BUILD_NOW (tests/fixtures/events-site.ts), served as a CDN would
 * (bench/static-server.ts, with the copy's `_headers`). The page without events is the one
 * `npm start` serves (its words are checked in site.spec.ts); both are photographed here.
 */
import { expect, test, type Page } from '@playwright/test';
import { startStaticServer, type StaticServer } from '../../bench/static-server';
import { PAST, UPCOMING } from '../fixtures/events';
import { buildEventsSite, disposeEventsSites } from '../fixtures/events-site';
import { expectNoViolations, smallTargets, WIDTHS } from './axe';

const SHOTS = 'test-results/events';
let server: StaticServer;

test.beforeAll(async () => {
  // A build of its own: minutes on a machine whose cores are busy.
  test.setTimeout(600_000);
  const site = await buildEventsSite('events');
  server = await startStaticServer({ root: site.dist, port: 0 });
});

test.afterAll(async () => {
  await server?.close();
  await disposeEventsSites();
});

const at = (path: string) => `${server.origin}${path}`;
const list = (page: Page) => page.getByRole('main').getByRole('list').first();
const [UNDER_WAY, NEXT] = UPCOMING;
const BERLIN = UPCOMING.find((event) => event.id === 'berlin-breathwork')!;

test('the list shows the events still to come, soonest first, each with its date, place and price', async ({
  page,
}) => {
  await page.goto(at('/events'));
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { name: 'Coming Soon' })).toHaveCount(0);
  await expect(main.getByRole('heading', { level: 2, name: 'Upcoming events' })).toBeVisible();
  const titles = list(page).getByRole('heading', { level: 3 });
  await expect(titles).toHaveText(UPCOMING.map((event) => event.title));
  await expect(main).not.toContainText(PAST[0].title);

  const first = list(page).getByRole('article').first();
  await expect(first).toContainText('Tuesday, October 20, 2026');
  await expect(first).toContainText(/9:00\sAM\s.\s12:00\sPM\sPDT/);
  await expect(first).toContainText('2140 SE Division St, Portland, OR 97202');
  await expect(first).toContainText('$22.50');
  await expect(first.getByRole('link', { name: UNDER_WAY.title, exact: true })).toHaveAttribute(
    'href',
    `/events/${UNDER_WAY.id}`,
  );
});

test("each event's 'Add to calendar' is its calendar file, sent as text/calendar", async ({
  page,
  request,
}) => {
  await page.goto(at('/events'));
  const links = list(page).getByRole('link', { name: /^Add to calendar/ });
  await expect(links).toHaveCount(UPCOMING.length);
  await expect(
    list(page).getByRole('link', { name: `Add to calendar for ${NEXT.title}` }),
  ).toHaveAttribute('href', `/events/${NEXT.id}.ics`);
  for (const link of await links.all()) {
    const answer = await request.get(at((await link.getAttribute('href'))!));
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toBe('text/calendar; charset=utf-8');
    expect(await answer.text()).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*BEGIN:VEVENT/);
  }
});

test('the page offers the feed to subscribe to, and the mail links and Instagram of the spec', async ({
  page,
  request,
}) => {
  await page.goto(at('/events'));
  const main = page.getByRole('main');
  await expect(main.getByRole('link', { name: 'Subscribe' })).toHaveAttribute(
    'href',
    /^webcal:\/\/.+\/events\.ics$/,
  );
  await expect(main.getByRole('link', { name: 'Download all events' })).toHaveAttribute(
    'href',
    '/events.ics',
  );
  const feed = await request.get(at('/events.ics'));
  expect(feed.headers()['content-type']).toBe('text/calendar; charset=utf-8');
  expect((await feed.text()).match(/BEGIN:VEVENT/g)).toHaveLength(UPCOMING.length);
  await expect(main.getByRole('link', { name: 'Get Notified' })).toHaveAttribute(
    'href',
    /^mailto:/,
  );
  await expect(main.getByRole('link', { name: 'Get Full Calendar' })).toHaveAttribute(
    'href',
    /^mailto:/,
  );
  await expect(main.getByRole('link', { name: 'Follow on Instagram' })).toHaveAttribute(
    'href',
    /^https:\/\//,
  );
});

test("an event's page says when in the event's own zone, where and how much, and offers booking and the calendar file", async ({
  page,
}) => {
  await page.goto(at(`/events/${BERLIN.id}`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(BERLIN.title);
  const main = page.getByRole('main');
  await expect(main).toContainText('Sunday, October 25, 2026');
  await expect(main).toContainText(/10:00\s.\s11:00\sAM GMT\+1/);
  await expect(main).toContainText('Online');
  await expect(main).toContainText('$15');
  await expect(main.getByRole('link', { name: 'Book a place' })).toHaveAttribute(
    'href',
    'https://example.com/book/breathwork',
  );
  await expect(main.getByRole('link', { name: 'Add to calendar' })).toHaveAttribute(
    'href',
    `/events/${BERLIN.id}.ics`,
  );
  await main.getByRole('link', { name: 'All events' }).click();
  await expect(page).toHaveURL(at('/events'));
});

test("an event's description shows its Markdown as a reader expects: a list with its bullets, a link underlined, bold", async ({
  page,
}) => {
  await page.goto(at('/events/halloween-night-flow'));
  const items = page
    .getByRole('main')
    .getByRole('listitem')
    .filter({ hasText: /^(Lanterns & mats provided|Warm drinks after)$/ });
  await expect(items).toHaveText(['Lanterns & mats provided', 'Warm drinks after']);
  const list = items.first().locator('xpath=..');
  await expect(list).toHaveCSS('list-style-type', 'disc');
  // Each item on a line of its own, indented with its marker inside the text's column.
  const [first, second] = [await items.nth(0).boundingBox(), await items.nth(1).boundingBox()];
  expect(second!.y).toBeGreaterThanOrEqual(first!.y + first!.height);
  expect(Number.parseFloat(await list.evaluate((ul) => getComputedStyle(ul).paddingLeft))).toBe(24);
  const link = page.getByRole('link', { name: 'our Instagram' });
  await expect(link).toHaveCSS('text-decoration-line', 'underline');

  await page.goto(at(`/events/${BERLIN.id}`));
  const bold = page.getByRole('main').locator('strong', { hasText: 'Berlin' });
  expect(Number(await bold.evaluate((b) => getComputedStyle(b).fontWeight))).toBeGreaterThan(500);
});

test('a past event keeps its page, which says so and links to the events still to come', async ({
  page,
}) => {
  const response = await page.goto(at(`/events/${PAST[0].id}`));
  expect(response?.status()).toBe(200);
  const main = page.getByRole('main');
  await expect(main.getByRole('note')).toContainText('This event has passed.');
  await expect(main.getByRole('link', { name: /Add to calendar|Book/ })).toHaveCount(0);
  await main.getByRole('link', { name: 'See upcoming events' }).click();
  await expect(page).toHaveURL(at('/events'));
});

test('the sitemap lists the event pages beside the six pages', async ({ request }) => {
  const xml = await (await request.get(at('/sitemap-0.xml'))).text();
  const paths = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]).pathname);
  for (const event of [...UPCOMING, ...PAST]) expect(paths).toContain(`/events/${event.id}`);
  expect(paths).toContain('/events');
});

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    for (const path of ['/events', `/events/${NEXT.id}`, `/events/${PAST[0].id}`]) {
      test(`${path} has no WCAG 2.2 AA violations and no small targets`, async ({ page }) => {
        await page.goto(at(path));
        await expectNoViolations(page);
        expect(await smallTargets(page)).toEqual([]);
      });

      test(`${path} requests no script at load`, async ({ page }) => {
        const scripts: string[] = [];
        page.on('request', (request) => {
          if (request.resourceType() === 'script' || request.url().endsWith('.js'))
            scripts.push(request.url());
        });
        await page.goto(at(path), { waitUntil: 'networkidle' });
        expect(scripts).toEqual([]);
        // Nor later, without a touch: no script file is linked, and every island waits for the
        // visitor's first touch (`client:interaction`), none for scrolling into view or idling.
        await expect(page.locator('script[src], link[rel="modulepreload"]')).toHaveCount(0);
        await expect(page.locator('astro-island:not([client="interaction"])')).toHaveCount(0);
      });
    }

    test('the Events page with and without events fits the screen, and is photographed', async ({
      page,
    }) => {
      const overflow = () =>
        page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      for (const [name, url] of [
        ['with-events', at('/events')],
        ['event', at(`/events/${NEXT.id}`)],
        ['past-event', at(`/events/${PAST[0].id}`)],
        ['without-events', '/events'],
      ]) {
        await page.goto(url);
        expect(await overflow(), name).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `${SHOTS}/${width}/${name}.png`, fullPage: true });
      }
      await expect(page.getByRole('heading', { name: 'Coming Soon' })).toBeVisible();
    });
  });
}

test.describe('with JavaScript turned off', () => {
  test.use({ javaScriptEnabled: false, viewport: { width: 375, height: 740 } });

  test('the list, its calendar links and an event page are all there, and photographed', async ({
    page,
  }) => {
    await page.goto(at('/events'));
    await expect(list(page).getByRole('heading', { level: 3 })).toHaveCount(UPCOMING.length);
    await expect(list(page).getByRole('link', { name: /^Add to calendar/ })).toHaveCount(
      UPCOMING.length,
    );
    await page.screenshot({ path: `${SHOTS}/375-noscript/with-events.png`, fullPage: true });
    await page.goto(at(`/events/${NEXT.id}`));
    await expect(page.getByRole('link', { name: 'Add to calendar' })).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/375-noscript/event.png`, fullPage: true });
  });
});
