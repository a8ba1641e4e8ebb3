import { expect, test, type Page } from '@playwright/test';

const ROUTES = [
  { path: '/', heading: /./ },
  { path: '/about', heading: /./ },
  { path: '/services', heading: /./ },
  { path: '/events', heading: /./ },
  { path: '/contact', heading: 'Get In Touch' },
  { path: '/consultation', heading: /./ },
  { path: '/waiver', heading: 'Liability Waiver' },
];

const NAV = [
  ['Home', '/'],
  ['About', '/about'],
  ['Services', '/services'],
  ['Events', '/events'],
  ['Contact', '/contact'],
  ['Waiver', '/waiver'],
] as const;

const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

for (const { path, heading } of ROUTES) {
  test(`${path} answers 200 with its main heading`, async ({ page }) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
  });
}

test('an unknown path answers 404 with a way home and logs the path', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible();
  await expect(page.getByText('/no-such-page').first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/');
  expect(errors.join('\n')).toContain('/no-such-page');
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/);
});

test.describe('at desktop width', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  for (const [label, href] of NAV) {
    test(`the header marks ${label} as the current page on ${href}`, async ({ page }) => {
      await page.goto(href);
      const nav = mainNav(page);
      for (const [otherLabel, otherHref] of NAV) {
        const link = nav.getByRole('link', { name: otherLabel, exact: true });
        await expect(link).toHaveAttribute('href', otherHref);
        if (otherHref === href) await expect(link).toHaveAttribute('aria-current', 'page');
        else await expect(link).not.toHaveAttribute('aria-current', 'page');
      }
    });
  }

  test('the header stays in view while the page scrolls', async ({ page }) => {
    await page.goto('/services');
    await page.mouse.wheel(0, 2000);
    await expect(
      mainNav(page).getByRole('link', { name: 'Contact', exact: true }),
    ).toBeInViewport();
  });

  test('the footer has quick links, a mail link and a copyright line', async ({ page }) => {
    await page.goto('/');
    const footer = page.getByRole('contentinfo');
    const quick = footer.getByRole('navigation', { name: 'Quick links' });
    for (const [label, href] of NAV.slice(0, 4)) {
      await expect(quick.getByRole('link', { name: label, exact: true })).toHaveAttribute(
        'href',
        href,
      );
    }
    await expect(footer.locator('a[href^="mailto:"]')).toHaveCount(1);
    await expect(footer).toContainText(`© ${new Date().getFullYear()}`);
  });
});

test.describe("the product's words and targets on each page", () => {
  test('Home shows the hero buttons, feature cards, priced sessions, testimonials and closing links', async ({
    page,
  }) => {
    await page.goto('/');
    const main = page.getByRole('main');
    await expect(main.getByRole('link', { name: 'Explore Classes' })).toHaveAttribute(
      'href',
      '/services',
    );
    const consult = main.getByRole('link', { name: 'Schedule Consultation' });
    await expect(consult).toHaveCount(2);
    for (const link of await consult.all()) await expect(link).toHaveAttribute('href', '/contact');
    for (const title of ['Mindful Movement', 'Personal Attention', 'Goal-Oriented']) {
      await expect(main.getByRole('heading', { name: title })).toBeVisible();
    }
    for (const [title, price] of [
      ['Private Sessions', '$120'],
      ['Small Group Classes', '$45'],
      ['In-Home Sessions', '$150'],
    ]) {
      const card = main.locator('article', { has: page.getByRole('heading', { name: title }) });
      await expect(card).toContainText(price);
      await expect(card.getByRole('link', { name: /Learn More/ })).toHaveAttribute(
        'href',
        '/services',
      );
    }
    await expect(main).toContainText(/maximum 4/i);
    await expect(main.getByText('Rated 5 out of 5')).toHaveCount(3);
    await expect(main.getByRole('link', { name: /^Learn About / })).toHaveAttribute(
      'href',
      '/about',
    );
  });

  test('About shows the four values and both credential lists', async ({ page }) => {
    await page.goto('/about');
    const main = page.getByRole('main');
    for (const value of [
      'Mindful Movement',
      'Personalized Approach',
      'Inclusive Community',
      'Excellence in Teaching',
      'Certifications',
      'Continuing Education',
    ]) {
      await expect(main.getByRole('heading', { name: value })).toBeVisible();
    }
  });

  test('Services shows four services with duration and Inquire, three programs and the closing links', async ({
    page,
  }) => {
    await page.goto('/services');
    const main = page.getByRole('main');
    for (const [title, duration] of [
      ['1:1 Equipment Sessions', /60 minutes/],
      ['Professional/Corporate Events', /varies/i],
      ['Private Virtual Sessions', /60 minutes/],
      ['Private Parties/Events', /varies/i],
    ] as const) {
      const card = main.locator('article', { has: page.getByRole('heading', { name: title }) });
      await expect(card).toContainText(duration);
      await expect(card).toContainText('Inquire');
      await expect(card.locator('a[href="/contact"]')).toHaveCount(1);
    }
    for (const program of ['Prenatal Pilates', 'Injury Recovery', 'Senior Wellness']) {
      const card = main.locator('article', { has: page.getByRole('heading', { name: program }) });
      await expect(card.getByRole('link', { name: /Learn More/ })).toHaveAttribute(
        'href',
        '/contact',
      );
    }
    await expect(main.getByRole('link', { name: 'Schedule Consultation' })).toHaveAttribute(
      'href',
      '/contact',
    );
    await expect(main.getByRole('link', { name: 'Complete Waiver' })).toHaveAttribute(
      'href',
      '/waiver',
    );
  });

  test('Events shows Coming Soon with mail and social links', async ({ page }) => {
    await page.goto('/events');
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { name: 'Coming Soon' })).toBeVisible();
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

  test('Contact shows the information, social and first-time cards', async ({ page }) => {
    await page.goto('/contact');
    const main = page.getByRole('main');
    for (const title of [
      'Send a Message',
      'Contact Information',
      'Follow Along',
      'First Time Here?',
    ]) {
      await expect(main.getByRole('heading', { name: title })).toBeVisible();
    }
    await expect(main).toContainText('Mon-Fri 6AM-8PM');
    await expect(main).toContainText('Sat-Sun 8AM-6PM');
    await expect(main.locator('a[href^="mailto:"]').first()).toBeVisible();
    await expect(main).toContainText(/15-minute/);
    await expect(main.getByRole('link', { name: 'Book Free Consultation' })).toHaveAttribute(
      'href',
      '/consultation',
    );
  });

  test('Waiver shows its hero, three side cards and the main card', async ({ page }) => {
    await page.goto('/waiver');
    const main = page.getByRole('main');
    for (const title of [
      'Your Safety First',
      'Quick & Secure',
      'One-Time Only',
      'Participant Information & Liability Waiver',
    ]) {
      await expect(main.getByRole('heading', { name: title })).toBeVisible();
    }
  });
});

test.describe('at phone width nothing is wider than the screen', () => {
  for (const path of [
    '/',
    '/about',
    '/services',
    '/events',
    '/contact',
    '/waiver',
    '/no-such-page',
  ]) {
    test(`${path} fits 375 px, before and after its scripts run`, async ({ page }) => {
      await page.setViewportSize({ width: 375, height: 740 });
      const overflow = () =>
        page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await page.goto(path, { waitUntil: 'domcontentloaded' });
      expect(await overflow()).toBeLessThanOrEqual(0);
      // Scrolling to the end brings every island into view, and so hydrates it.
      await page.mouse.wheel(0, 10_000);
      await page.waitForLoadState('networkidle');
      expect(await overflow()).toBeLessThanOrEqual(0);
    });
  }
});

test.describe('pages without forms load no JavaScript', () => {
  for (const width of [1280, 375]) {
    for (const path of ['/', '/about', '/services', '/events']) {
      test(`${path} requests no script at ${width} px`, async ({ page }) => {
        await page.setViewportSize({ width, height: 800 });
        const scripts: string[] = [];
        page.on('request', (request) => {
          if (request.resourceType() === 'script' || request.url().endsWith('.js'))
            scripts.push(request.url());
        });
        await page.goto(path, { waitUntil: 'networkidle' });
        // Everything scrolled into view, and two frames drawn: whatever observes the viewport
        // has run, and would have asked for its script.
        await page.evaluate(async () => {
          window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' });
          await new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)));
        });
        expect(scripts).toEqual([]);
      });
    }
  }
});

test("the studio's structured data offers exactly the priced sessions shown on Home", async ({
  page,
}) => {
  await page.goto('/');
  const data = JSON.parse(
    (await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}',
  );
  expect(data['@type']).toBe('ExerciseGym');
  expect(data.openingHoursSpecification).toHaveLength(2);
  const cards = page.getByRole('main').locator('article', { hasText: '$' });
  const shown: string[] = [];
  for (const card of await cards.all()) {
    const title = (await card.getByRole('heading').first().textContent())?.trim();
    const price = (await card.textContent())?.match(/\$(\d+)/)?.[1];
    if (title && price) shown.push(`${title} ${price}`);
  }
  const offered = data.makesOffer.map(
    (o: { name: string; price: string }) => `${o.name} ${Number(o.price)}`,
  );
  expect(shown).toHaveLength(3);
  expect(offered).toEqual(shown);
});
