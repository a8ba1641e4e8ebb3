import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { parse } from 'yaml';
import { copyProject, type ProjectCopy } from '../fixtures/project-copy';

/**
 * The content editor at /admin, driven as she would on a phone (375 px), against `npm start` in a
 * copy of the project (its own content/, its own database), whose local backend writes the copy's
 * files: a new price, a class added to the timetable, a new testimonial, a price refused in her
 * words; then the files as saved (their comments kept) and the site built again from them.
 */
const PORT = Number(process.env.E2E_EDITOR_PORT ?? 8903);
const SITE = `http://127.0.0.1:${PORT}`;
const PHONE = { width: 375, height: 812 };

let copy: ProjectCopy;
let server: ChildProcess;
let said = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  copy = await copyProject('editor-');
  server = spawn(process.execPath, ['scripts/serve.ts'], {
    cwd: copy.dir,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(PORT), OUTBOX_INTERVAL_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout!.on('data', (chunk: Buffer) => (said += String(chunk)));
  server.stderr!.on('data', (chunk: Buffer) => (said += String(chunk)));
  await expect
    .poll(() => said, { timeout: 590_000, intervals: [1000] })
    .toContain('Serving the studio site on');
});

test.afterAll(async () => {
  // How long the site took to build again after each save (docs/developing.md).
  for (const [line] of said.matchAll(/Rebuilt after the editor's save in [\d.]+ s/g))
    console.log(line);
  if (server?.pid) {
    const ended = new Promise((resolve) => server.once('exit', resolve));
    process.kill(-server.pid, 'SIGTERM');
    await ended;
  }
  await copy?.dispose();
});

async function signIn(page: Page) {
  await page.setViewportSize(PHONE);
  await page.goto(`${SITE}/admin`);
  // Locally there is no account: Decap's local backend signs in with one press.
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByRole('link', { name: 'Sessions (Home cards)' })).toBeVisible();
}

async function publish(page: Page) {
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await page.getByText('Publish now').click();
}

/** The number of times the server said its rebuild after a save was done. */
const rebuilds = () => said.split("Rebuilt after the editor's save").length - 1;

test('a price the build would refuse is refused in her words; a right one is saved, comments kept', async ({
  page,
}) => {
  test.setTimeout(360_000);
  await signIn(page);
  await page.getByRole('link', { name: 'Sessions (Home cards)' }).click();
  await page.getByText('Private Sessions').click();
  const price = page.getByLabel('Price');
  await expect(price).toHaveValue('120');

  await price.fill('-5');
  await publish(page);
  await expect(page.getByText('use a number of US dollars, e.g. 120').first()).toBeVisible();
  await expect(page.locator('[class*="-ControlErrorsList"]')).toHaveText(
    /use a number of US dollars, e.g. 120/,
  );
  expect(await copy.read('content/sessions/private.md')).toContain('price: 120\n');

  const before = rebuilds();
  await price.fill('135');
  await publish(page);
  await expect(page.getByText('Changes saved', { exact: false })).toBeVisible();
  const saved = await copy.read('content/sessions/private.md');
  expect(saved).toContain('price: 135\n');
  // Only the price changed: the comments that explain the lines are still there.
  expect(saved).toContain('# How long one session lasts, in minutes.');
  await expect.poll(rebuilds, { timeout: 300_000, intervals: [1000] }).toBeGreaterThan(before);
  const home = await (await fetch(SITE)).text();
  expect(home).toContain('$135');
});

test('a class added to the timetable is saved in classes.yaml and shown on /classes', async ({
  page,
}) => {
  test.setTimeout(360_000);
  await signIn(page);
  await page.getByRole('link', { name: 'Studio, hours and policies' }).click();
  await page.getByText('Classes and timetable').click();
  await page.getByRole('button', { name: /Add classes/ }).click();
  const added = page.locator('[class*="-ListItem"]').last();
  await added.getByLabel('Name').fill('Sunday Stretch');
  await added.getByLabel('Days').click();
  await page.keyboard.type('Su');
  await page.keyboard.press('Enter');
  await added.getByLabel('Time').fill('10:00');
  await added.getByLabel('Length minutes').fill('45');
  await publish(page);
  await expect(page.getByText('Changes saved', { exact: false })).toBeVisible();
  const yaml = await copy.read('content/classes.yaml');
  const { classes } = parse(yaml) as { classes: Record<string, unknown>[] };
  expect(classes.at(-1)).toEqual({
    name: 'Sunday Stretch',
    days: ['Su'],
    time: '10:00',
    lengthMinutes: 45,
  });
  expect(yaml).toContain('# The weekly timetable.');
  await expect
    .poll(async () => (await fetch(`${SITE}/classes`)).text(), { timeout: 60_000 })
    .toContain('Sunday Stretch');
});

/** A small photo, as a phone would upload one (a PNG of 96 by 96 pixels). */
function photo(): Buffer {
  const png = new PNG({ width: 96, height: 96 });
  for (let at = 0; at < png.data.length; at += 4) png.data.set([180, 140, 120, 255], at);
  return PNG.sync.write(png);
}

test('a new testimonial with a photo is a new file, its photo beside it and resized by the build', async ({
  page,
}) => {
  test.setTimeout(360_000);
  await signIn(page);
  await page.getByRole('link', { name: 'Testimonials' }).click();
  await page
    .getByRole('link', { name: /Testimonial/ })
    .last()
    .click();
  await expect(page).toHaveURL(/#\/collections\/testimonials\/new$/);
  await page.getByLabel('Name').fill('Priya K.');
  await page.getByLabel('Rating').fill('5');
  await page.getByLabel('Order').fill('4');
  await page.getByRole('button', { name: 'Choose an image' }).click();
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: 'priya.png', mimeType: 'image/png', buffer: photo() });
  // The picture uploaded is the one chosen.
  await page.getByRole('button', { name: 'Choose selected' }).click();
  await expect(page.getByRole('button', { name: 'Choose different image' })).toBeVisible();
  await page.getByLabel('Photo described').fill('Priya smiling after class');
  await page.getByLabel('What they said').fill('Two months in, my shoulders finally drop.');
  const before = rebuilds();
  await publish(page);
  await expect(page.getByText('Changes saved', { exact: false })).toBeVisible();
  const file = await copy.read('content/testimonials/priya-k.md');
  expect(file).toBe(
    '---\nname: Priya K.\nrating: 5\norder: 4\nphoto: ./priya.png\nphotoAlt: Priya smiling after class\n---\n\nTwo months in, my shoulders finally drop.\n',
  );
  expect((await readFile(copy.path('content/testimonials/priya.png'))).equals(photo())).toBe(true);
  await expect.poll(rebuilds, { timeout: 300_000, intervals: [1000] }).toBeGreaterThan(before);
  const home = await (await fetch(SITE)).text();
  // Converted and resized as every picture of the site is (src/components/ui/ContentImage.astro).
  const img = /<img\b[^>]*alt="Priya smiling after class"[^>]*>/.exec(home)?.[0];
  expect(img).toMatch(/src="\/_astro\/priya[^"]*\.webp"/);
});

test('no public page loads a byte of the editor', async () => {
  const sitemap = await (await fetch(`${SITE}/sitemap-0.xml`)).text();
  const pages = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map(
    ([, url]) => new URL(url!).pathname,
  );
  expect(pages.length).toBeGreaterThan(5);
  expect(pages.filter((path) => path.startsWith('/admin'))).toEqual([]);
  for (const path of pages) {
    const html = await (await fetch(`${SITE}${path}`)).text();
    expect(html, path).not.toContain('/admin/');
    for (const [, src] of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) {
      const script = await (await fetch(new URL(src!, SITE))).text();
      expect(script, `${path}: ${src}`).not.toMatch(/decap|CMS_MANUAL_INIT/i);
    }
  }
  // Nor does any script the site's pages and islands are built with.
  for (const name of await readdir(copy.path('dist/_astro'))) {
    if (!name.endsWith('.js')) continue;
    const script = await readFile(copy.path(`dist/_astro/${name}`), 'utf8');
    expect(script, name).not.toMatch(/decap|CMS_MANUAL_INIT/i);
  }
  expect(await (await fetch(`${SITE}/robots.txt`)).text()).toMatch(/^Disallow: \/admin$/m);
});
