/**
 * What the engine tests share: the proxy and SMTP server of a test file, an engine per
 * describe block, and the few things done to a page in every test (find, wait, read errors).
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, inject, onTestFinished } from 'vitest';
import { startSmtp, type TestSmtp } from '../functions/harness';
import {
  launch,
  type ElementRef,
  type Engine,
  type EngineName,
  type EnginePage,
} from './browsers.ts';
import { findElements, takeRecordedErrors, type Query } from './in-page.ts';
import { startProxy, type Proxy } from './proxy.ts';

export { selectedEngines } from './engines.ts';

export { PAGES, WIDTHS } from '../fixtures/pages';
export const NAV_LABELS = ['Home', 'About', 'Services', 'Events', 'Contact', 'Waiver'];
export const STUDIO_INBOX = 'studio-inbox@example.test';
export const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/engines');

/** Waits for conditions on a slow shared machine: generous, but never a fixed sleep. */
export const WAIT = { timeout: 20_000, interval: 100 };

/** The proxy (and, for the form tests, the SMTP server) of one test file. */
export function useSite(options: { smtp?: boolean } = {}) {
  let proxy: Proxy | undefined;
  let smtp: TestSmtp | undefined;
  beforeAll(async () => {
    proxy = await startProxy(inject('siteUrl'), inject('proxyPort'));
    if (options.smtp) smtp = await startSmtp(inject('smtpPort'));
  });
  afterAll(async () => {
    await proxy?.stop();
    await smtp?.stop();
  });
  return {
    url: (path: string) => `${proxy!.url}${path}`,
    get proxy() {
      return proxy!;
    },
    get smtp() {
      if (!smtp) throw new Error('useSite({ smtp: true }) starts the SMTP server');
      return smtp;
    },
  };
}

/** One engine for a describe block; `open()` gives a fresh page, closed after its test. */
export function useEngine(name: EngineName, options: { javaScript: boolean }) {
  let engine: Engine | undefined;
  beforeAll(async () => {
    engine = await launch(name, { ...options, webkitDriverUrl: inject('webkitDriverUrl') });
  }, 90_000);
  afterAll(async () => {
    await engine?.close();
  });
  return {
    get engine() {
      return engine!;
    },
    async open(width: number, height = 800) {
      const page = await engine!.newPage();
      onTestFinished(() => page.close());
      await page.setViewport(width, height);
      return page;
    },
  };
}

/** The one element a query finds, once it is there (fails if it finds several). */
export async function find(page: EnginePage, query: Query, scope?: ElementRef) {
  let found: ElementRef[] = [];
  await expect
    .poll(async () => (found = await page.findAll(query, scope)).length, {
      ...WAIT,
      message: `one element for ${JSON.stringify(query)}`,
    })
    .toBe(1);
  return found[0]!;
}

/** Whether a query finds anything now (visible elements only, unless it says otherwise). */
export async function isShown(page: EnginePage, query: Query, scope?: ElementRef) {
  return (await page.findAll(query, scope)).length > 0;
}

export async function waitUntilShown(page: EnginePage, query: Query, timeout = WAIT.timeout) {
  await expect
    .poll(() => isShown(page, query), { ...WAIT, timeout, message: JSON.stringify(query) })
    .toBe(true);
}

export async function waitUntilGone(page: EnginePage, query: Query) {
  await expect
    .poll(() => isShown(page, query), { ...WAIT, message: `${JSON.stringify(query)} gone` })
    .toBe(false);
}

/** How far the page is wider than the viewport (0 when nothing sticks out). */
export function overflow(page: EnginePage) {
  return page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
}

/** Waits until the island holding `element` has hydrated (Astro removes its `ssr` mark). */
export async function waitForIsland(page: EnginePage, element: ElementRef) {
  await expect
    .poll(
      () =>
        page.evaluate(
          (el: Element) => !el.closest('astro-island')?.hasAttribute('ssr'),
          element as never,
        ),
      { ...WAIT, message: 'the island hydrates' },
    )
    .toBe(true);
}

/**
 * Scrolls through the whole page as a visitor would, so that lazy images load and every
 * `client:visible` island hydrates, waits for both, and goes back to the top. Gives the images
 * that did not load (their addresses).
 */
export async function viewWholePage(page: EnginePage, options: { javaScript: boolean }) {
  const [height, step] = await page.evaluate(() => [
    document.documentElement.scrollHeight,
    Math.max(200, Math.floor(window.innerHeight / 2)),
  ]);
  // Screen by screen, each one until the images on it have loaded, as a person looks at them.
  for (let top = 0; top < height; top += step) {
    await page.evaluate((y: number) => window.scrollTo(0, y), top);
    await expect
      .poll(
        () =>
          page.evaluate(
            () =>
              [...document.images].filter((img) => {
                const rect = img.getBoundingClientRect();
                return !img.complete && rect.bottom > 0 && rect.top < window.innerHeight;
              }).length,
          ),
        { ...WAIT, message: `the images in view at ${top} px load` },
      )
      .toBe(0);
  }
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect
    .poll(() => page.evaluate(() => [...document.images].filter((img) => !img.complete).length), {
      ...WAIT,
      message: 'every image has loaded or failed',
    })
    .toBe(0);
  if (options.javaScript) {
    await expect
      .poll(
        () =>
          page.evaluate(() => {
            const waiting = [...document.querySelectorAll('astro-island[ssr][client="visible"]')];
            waiting.forEach((island) => island.scrollIntoView());
            return waiting.length;
          }),
        { ...WAIT, message: 'every visible island hydrates' },
      )
      .toBe(0);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return page.evaluate(() =>
    [...document.images].filter((img) => img.naturalWidth === 0).map((img) => img.currentSrc),
  );
}

/** Waits until the page has been open `ms` (the forms' time trap counts from the page's start). */
export async function pageOpenFor(page: EnginePage, ms: number) {
  await expect
    .poll(() => page.evaluate(() => performance.now()), { ...WAIT, message: `open ${ms} ms` })
    .toBeGreaterThan(ms);
}

/**
 * The console errors since the last call: what the recorder in the page saw, and in Gecko and
 * Chromium what the browser's own log saw too. With scripts on, a page without the recorder
 * fails the test, so a broken recorder cannot pass for a clean page.
 */
export async function consoleErrors(page: EnginePage, options: { javaScript: boolean }) {
  const recorded = await page.evaluate(takeRecordedErrors);
  if (options.javaScript && recorded === null) {
    throw new Error('The console-error recorder did not run in this page (see proxy.ts)');
  }
  return {
    recorded: recorded ?? [],
    native: page.nativeErrors().filter((error) => !LEFT_BEFORE_THE_FACE.test(error)),
  };
}

/**
 * Gecko logs an error for the headings' face when the visitor leaves a page while it is still
 * coming (the face is asked for half a second after the page is styled): its request is then
 * cancelled by the browser itself, `NS_BINDING_ABORTED` (status 0x804B0002). Nothing failed; any
 * other failure of the face (a 404, a bad file) still counts.
 */
const LEFT_BEFORE_THE_FACE =
  /downloadable font: download failed \(font-family: "Spectral"[^)]*\): status=2152398850 /;

/**
 * Types a waiver's personal and emergency fields for Ingrid `lastName` at `email` (her records
 * mail is 'Signed waiver: Ingrid <lastName>'), then the labelled fields of `more`.
 */
export async function fillWaiver(
  page: EnginePage,
  { lastName, email }: { lastName: string; email: string },
  more: [label: string, value: string][] = [],
) {
  for (const [label, value] of [
    ['First Name', 'Ingrid'],
    ['Last Name', lastName],
    ['Email', email],
    ['Phone', '503-555-0142'],
    ['Emergency Contact Name', 'Tomas Okonkwo'],
    ['Emergency Contact Phone', '503-555-0199'],
    ...more,
  ]) {
    await page.type(await find(page, { label }), value);
  }
}

/** Dark pixels on a canvas: 0 for a blank (white) pad. */
export function inkPixels(page: EnginePage, canvas: ElementRef) {
  return page.evaluate((el: HTMLCanvasElement) => {
    const { data } = el.getContext('2d')!.getImageData(0, 0, el.width, el.height);
    let dark = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! < 128 && data[i + 3]! > 128) dark++;
    return dark;
  }, canvas as never);
}

/** A signature-like scrawl: left to right across the pad, up and down. */
export const SCRAWL = Array.from(
  { length: 24 },
  (_, i) => [0.12 + i * 0.032, 0.55 - 0.25 * Math.sin(i / 2)] as const,
);

export { findElements };
