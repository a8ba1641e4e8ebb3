/**
 * One small interface over the two ways the engines are driven, so every test reads the same in
 * both:
 *
 * - Gecko (Firefox ESR) through puppeteer-core over WebDriver BiDi, which Firefox serves itself
 *   (no geckodriver): headless, a fresh profile per launch, JavaScript turned off with the
 *   `javascript.enabled` preference. Its own log (BiDi `log.entryAdded`) is kept as well.
 * - WebKit (WebKitGTK) through selenium-webdriver's W3C WebDriver client against WebKitGTK's
 *   `WebKitWebDriver`, which launches MiniBrowser under Xvfb (see global-setup.ts). It has no
 *   BiDi (`webSocketUrl: true` is refused), so no log events: console errors come from the
 *   recorder the test proxy puts into every page (in-page.ts). JavaScript is turned off with
 *   MiniBrowser's `--enable-javascript=false` (a WebKitSettings property) in
 *   `webkitgtk:browserOptions.args`.
 * - Chromium, only as the reference the others are compared with (`ENGINES=chromium`), through
 *   puppeteer-core over the DevTools protocol with the project's Chromium flags.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PNG } from 'pngjs';
import puppeteer, {
  type Browser,
  type ElementHandle,
  type JSHandle,
  type Page,
} from 'puppeteer-core';
import { Capabilities, Key, Origin, WebDriver, type WebElement } from 'selenium-webdriver';
import { Executor, HttpClient } from 'selenium-webdriver/http';
import { CHROMIUM_FLAGS, findChromium } from '../../scripts/chromium.ts';
import { findEngines } from '../../scripts/engines.ts';
import { findElements, type Query } from './in-page.ts';

export type EngineName = 'firefox' | 'webkit' | 'chromium';

/** An element in the page, as the engine's client knows it; pass it back to the page's methods. */
export type ElementRef = ElementHandle<Element> | WebElement;

export interface LaunchOptions {
  javaScript: boolean;
  /** WebKit only: the WebKitWebDriver server to ask for a session. */
  webkitDriverUrl?: string;
}

export interface Engine {
  readonly name: EngineName;
  readonly version: string;
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}

/** A point on an element, as fractions of its width and height from its top left corner. */
export type Point = readonly [x: number, y: number];

export interface EnginePage {
  readonly engine: EngineName;
  goto(url: string): Promise<void>;
  url(): Promise<string>;
  /** Makes the layout viewport `width` x `height` CSS px (WebKit: by sizing the window). */
  setViewport(width: number, height: number): Promise<void>;
  /** Runs a self-contained function in the page; elements may be passed and returned. */
  evaluate<T, A extends unknown[]>(fn: (...args: A) => T, ...args: A): Promise<Awaited<T>>;
  /** Like `evaluate`, for a function that returns an element (or null). */
  evaluateElement<A extends unknown[]>(
    fn: (...args: A) => Element | null,
    ...args: A
  ): Promise<ElementRef | null>;
  findAll(query: Query, scope?: ElementRef): Promise<ElementRef[]>;
  click(element: ElementRef): Promise<void>;
  /** Types into a field as a person does, key by key (the field gets the focus first). */
  type(element: ElementRef, text: string): Promise<void>;
  /** Chooses an option of a select by its value. */
  select(element: ElementRef, value: string): Promise<void>;
  press(key: 'Escape' | 'Tab' | 'Enter'): Promise<void>;
  /** Presses a pointer at the first point, moves it through the others and lifts it. */
  draw(element: ElementRef, points: readonly Point[]): Promise<void>;
  /** A picture of the whole page, not just the viewport. */
  screenshot(path: string): Promise<void>;
  /** Errors from the browser's own log since the last call, where the client has one. */
  nativeErrors(): string[];
  close(): Promise<void>;
}

export async function launch(name: EngineName, options: LaunchOptions): Promise<Engine> {
  if (name === 'webkit') return launchWebKit(options);
  return launchPuppeteer(name, options);
}

/**
 * Scrolls the element into view and gives its box in viewport pixels once it has stayed put
 * for two readings and is what a pointer at its centre would hit (a field's caret scrolling into
 * view may move the page just after it was scrolled). Both engines click and draw at the box
 * this gives, with W3C pointer actions. It is plain page evaluation: with `javascript.enabled`
 * off, Firefox never answers puppeteer's ElementHandle helpers (their utility realm cannot run),
 * and WebKitWebDriver's own Element Click refused some visible buttons as "not interactable".
 */
async function restingBox(page: EnginePage, element: ElementRef) {
  let previous = '';
  for (let attempt = 0; attempt < 100; attempt++) {
    const box = await page.evaluate((el: Element) => {
      let rect = el.getBoundingClientRect();
      if (rect.top < 0 || rect.bottom > window.innerHeight) {
        el.scrollIntoView({ block: 'center', inline: 'center' });
        rect = el.getBoundingClientRect();
      }
      const hit = document.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2);
      const labels = el instanceof HTMLInputElement ? [...(el.labels ?? [])] : [];
      const hits = !!hit && (el.contains(hit) || labels.some((label) => label.contains(hit)));
      return { x: rect.x, y: rect.y, width: rect.width, height: rect.height, hits };
    }, element as never);
    if (box.width === 0 && box.height === 0) throw new Error('The element is not rendered');
    const key = JSON.stringify(box);
    if (box.hits && key === previous) return box;
    previous = key;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('The element did not come to rest in view, unobscured, within 5 s');
}

/** Chooses an option by value as the select's own change would: value, input and change. */
function chooseOption(select: HTMLSelectElement, value: string) {
  select.focus();
  select.value = value;
  select.dispatchEvent(new Event('input', { bubbles: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
}

// ---------------------------------------------------------------------------------------------
// Gecko and Chromium: puppeteer-core

async function launchPuppeteer(
  name: 'firefox' | 'chromium',
  { javaScript }: LaunchOptions,
): Promise<Engine> {
  const browser: Browser =
    name === 'firefox'
      ? await puppeteer.launch({
          browser: 'firefox',
          protocol: 'webDriverBiDi',
          executablePath: findEngines().firefox ?? '/usr/bin/firefox-esr',
          headless: true,
          extraPrefsFirefox: {
            'javascript.enabled': javaScript,
            // Scrollbars over the page, as on a phone (and in WebKit here): a classic one would
            // take 12 px of a 375 px viewport's width.
            'ui.useOverlayScrollbars': 1,
            'widget.gtk.overlay-scrollbars.enabled': true,
          },
        })
      : await puppeteer.launch({
          browser: 'chrome',
          executablePath: findChromium() ?? '/usr/bin/chromium',
          headless: true,
          args: CHROMIUM_FLAGS,
        });
  const version = await browser.version();
  return {
    name,
    version,
    async newPage() {
      const page = await browser.newPage();
      if (!javaScript && name === 'chromium') await page.setJavaScriptEnabled(false);
      return new PuppeteerPage(name, page);
    },
    close: () => browser.close(),
  };
}

class PuppeteerPage implements EnginePage {
  private readonly errors: string[] = [];
  readonly engine: EngineName;
  private readonly page: Page;

  constructor(engine: EngineName, page: Page) {
    this.engine = engine;
    this.page = page;
    page.on('console', (message) => {
      if (message.type() === 'error') this.errors.push(message.text());
    });
    page.on('pageerror', (error) => this.errors.push(`uncaught ${String(error)}`));
  }

  async goto(url: string) {
    await this.page.goto(url, { waitUntil: 'load' });
  }

  async url() {
    return this.page.url();
  }

  async setViewport(width: number, height: number) {
    await this.page.setViewport({ width, height });
  }

  evaluate<T, A extends unknown[]>(fn: (...args: A) => T, ...args: A) {
    return this.page.evaluate(fn as never, ...(args as unknown as never[])) as Promise<Awaited<T>>;
  }

  async evaluateElement<A extends unknown[]>(fn: (...args: A) => Element | null, ...args: A) {
    const handle: JSHandle = await this.page.evaluateHandle(
      fn as never,
      ...(args as unknown as never[]),
    );
    const element = handle.asElement();
    if (!element) await handle.dispose();
    return element as ElementHandle<Element> | null;
  }

  async findAll(query: Query, scope?: ElementRef) {
    const list = await this.page.evaluateHandle(findElements, query, (scope ?? null) as never);
    const properties = await list.getProperties();
    const elements: ElementRef[] = [];
    for (const property of properties.values()) {
      const element = property.asElement();
      if (element) elements.push(element as ElementHandle<Element>);
    }
    await list.dispose();
    return elements;
  }

  async click(element: ElementRef) {
    const { x, y, width, height } = await restingBox(this, element);
    await this.page.mouse.click(x + width / 2, y + height / 2);
  }

  async type(element: ElementRef, text: string) {
    await this.click(element);
    await this.page.keyboard.type(text);
  }

  async select(element: ElementRef, value: string) {
    await this.evaluate(chooseOption, element as never, value);
  }

  async press(key: 'Escape' | 'Tab' | 'Enter') {
    await this.page.keyboard.press(key);
  }

  async draw(element: ElementRef, points: readonly Point[]) {
    const box = await restingBox(this, element);
    const at = ([fx, fy]: Point) => [box.x + box.width * fx, box.y + box.height * fy] as const;
    const [first, ...rest] = points;
    await this.page.mouse.move(...at(first!));
    await this.page.mouse.down();
    for (const point of rest) await this.page.mouse.move(...at(point), { steps: 2 });
    await this.page.mouse.up();
  }

  async screenshot(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    await this.page.screenshot({ path: path as `${string}.png`, fullPage: true });
  }

  nativeErrors() {
    return this.errors.splice(0);
  }

  async close() {
    await this.page.close();
  }
}

// ---------------------------------------------------------------------------------------------
// WebKit: selenium-webdriver and WebKitWebDriver

/** Whether the picture's bottom row is pure black from edge to edge: not painted yet. */
function endsUnpainted(file: Buffer): boolean {
  const { width, height, data } = PNG.sync.read(file);
  const row = (height - 1) * width * 4;
  for (let x = 0; x < width; x++) {
    const i = row + x * 4;
    if (data[i] !== 0 || data[i + 1] !== 0 || data[i + 2] !== 0) return false;
  }
  return true;
}

/** A WebDriver command that does not answer fails the test naming it, instead of hanging it. */
function answerWithin<T>(what: string, promise: Promise<T>, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`WebKit: ${what} got no answer in ${ms / 1000} s`)),
      ms,
    );
  });
  return Promise.race([promise, late])
    .catch((error: unknown) => {
      throw sessionLost(error) ? new WebKitGone(what) : error;
    })
    .finally(() => clearTimeout(timer));
}

/**
 * What a step says when MiniBrowser itself went away under it (WebKitWebDriver then answers
 * every request with "no such session", and an empty message). On this machine that happens
 * now and then in a long run, with nothing of the site's in the test's steps; the engines' config
 * retries a test once for that reason alone (vitest.engines.config.ts), and the next page starts
 * a new MiniBrowser.
 */
export const WEBKIT_GONE = "WebKit's MiniBrowser is gone: its WebDriver session ended";

class WebKitGone extends Error {
  constructor(step: string) {
    super(`${WEBKIT_GONE} (${step})`);
  }
}

const sessionLost = (error: unknown) =>
  error instanceof Error && error.name === 'NoSuchSessionError';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

async function launchWebKit({ javaScript, webkitDriverUrl }: LaunchOptions): Promise<Engine> {
  if (!webkitDriverUrl) throw new Error('No WebKitWebDriver is running (see global-setup.ts)');
  const executor = new Executor(new HttpClient(webkitDriverUrl));
  const sessions = new Set<WebDriver>();
  // A session is a MiniBrowser with a fresh, ephemeral profile.
  const newSession = async () => {
    const driver = WebDriver.createSession(
      executor,
      new Capabilities({
        'webkitgtk:browserOptions': {
          binary: process.env.MINIBROWSER_PATH ?? MINIBROWSER,
          // `--automation` is what WebKitWebDriver passes itself when no binary is given.
          args: ['--automation', `--enable-javascript=${javaScript}`],
        },
      }),
    );
    await answerWithin('a new session (MiniBrowser starting)', driver.getSession(), 60_000);
    sessions.add(driver);
    return driver;
  };
  // One session (one MiniBrowser) serves every page of the engine in turn, each starting from
  // a blank page and its own viewport: starting a MiniBrowser per test costs a second or two,
  // and now and then WebKitWebDriver never answers a new-session request on this machine.
  let driver = await newSession().catch(() => newSession());
  const version = String((await driver.getCapabilities()).get('browserVersion'));
  return {
    name: 'webkit',
    version: `WebKitGTK ${version}`,
    async newPage() {
      try {
        await answerWithin('a blank page', driver.get('about:blank'));
      } catch (error) {
        if (!(error instanceof WebKitGone)) throw error;
        console.warn(`${WEBKIT_GONE}; starting a new one`);
        driver = await newSession();
        await answerWithin('a blank page', driver.get('about:blank'));
      }
      return new WebKitPage(driver);
    },
    async close() {
      await Promise.all(
        [...sessions].map((d) => answerWithin('closing', d.quit()).catch(() => {})),
      );
    },
  };
}

class WebKitPage implements EnginePage {
  readonly engine = 'webkit' as const;
  private readonly driver: WebDriver;

  constructor(driver: WebDriver) {
    this.driver = driver;
  }

  async goto(url: string) {
    await answerWithin(`loading ${url}`, this.driver.get(url));
  }

  url() {
    return answerWithin('the current URL', this.driver.getCurrentUrl());
  }

  /** The page's viewport size, once the page reports the same size twice in a row. */
  private async settledViewport(): Promise<[number, number]> {
    let last = '';
    for (let reading = 0; reading < 50; reading++) {
      const size = await this.evaluate(() => [window.innerWidth, window.innerHeight] as const);
      if (size.join() === last) return [size[0], size[1]];
      last = size.join();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('The viewport did not settle');
  }

  async setViewport(width: number, height: number) {
    // The window holds MiniBrowser's (shrunk) toolbar as well, and the page learns of a resize a
    // moment after the window has it: size the window, let the page settle, add what the
    // toolbar takes, and check.
    const win = this.driver.manage().window();
    await answerWithin('resizing the window', win.setRect({ width, height }));
    await this.settledViewport();
    for (let attempt = 0; attempt < 20; attempt++) {
      const [innerWidth, innerHeight] = await this.settledViewport();
      if (innerWidth === width && innerHeight === height) return;
      const rect = await answerWithin('the window size', win.getRect());
      await answerWithin(
        'resizing the window',
        win.setRect({
          width: Math.max(1, width + rect.width - innerWidth),
          height: Math.max(1, height + rect.height - innerHeight),
        }),
      );
    }
    throw new Error(`WebKit's viewport could not be made ${width}x${height}`);
  }

  evaluate<T, A extends unknown[]>(fn: (...args: A) => T, ...args: A) {
    return answerWithin(
      `running ${fn.name || 'a script'}`,
      this.driver.executeScript<Awaited<T>>(
        `return (${fn.toString()}).apply(null, arguments);`,
        ...args,
      ),
    );
  }

  async evaluateElement<A extends unknown[]>(fn: (...args: A) => Element | null, ...args: A) {
    return (await this.evaluate(fn, ...args)) as unknown as WebElement | null;
  }

  async findAll(query: Query, scope?: ElementRef) {
    return (await this.evaluate(
      findElements,
      query,
      (scope ?? null) as never,
    )) as unknown as WebElement[];
  }

  async click(element: ElementRef) {
    const { x, y, width, height } = await restingBox(this, element);
    await answerWithin(
      'clicking',
      this.driver
        .actions()
        .move({
          origin: Origin.VIEWPORT,
          x: Math.round(x + width / 2),
          y: Math.round(y + height / 2),
        })
        .press()
        .release()
        .perform(),
    );
  }

  async type(element: ElementRef, text: string) {
    await this.click(element);
    await answerWithin('typing', this.driver.actions().sendKeys(text).perform());
  }

  async select(element: ElementRef, value: string) {
    await this.evaluate(chooseOption, element as never, value);
  }

  async press(key: 'Escape' | 'Tab' | 'Enter') {
    const keys = { Escape: Key.ESCAPE, Tab: Key.TAB, Enter: Key.ENTER };
    await answerWithin(`pressing ${key}`, this.driver.actions().sendKeys(keys[key]).perform());
  }

  async draw(element: ElementRef, points: readonly Point[]) {
    const box = await restingBox(this, element);
    const at = ([fx, fy]: Point) => ({
      origin: Origin.VIEWPORT,
      x: Math.round(box.x + box.width * fx),
      y: Math.round(box.y + box.height * fy),
    });
    const [first, ...rest] = points;
    let actions = this.driver.actions().move(at(first!)).press();
    for (const point of rest) actions = actions.move({ ...at(point), duration: 16 });
    await answerWithin('drawing', actions.release().perform());
  }

  async screenshot(path: string) {
    // WebKitWebDriver captures the viewport only: make the viewport as tall as the page, take
    // it, and put the viewport back. Nothing on the site depends on the viewport's height but
    // `min-height: 100vh` on the body, which the page's own height then satisfies.
    const [width, height, pageHeight] = await this.evaluate(() => [
      window.innerWidth,
      window.innerHeight,
      Math.ceil(document.documentElement.scrollHeight),
    ]);
    await this.setViewport(width, Math.max(height, pageHeight));
    await this.evaluate(() => window.scrollTo(0, 0));
    // Just after the resize, the last rows may not be painted yet (pure black): take it again.
    let png = Buffer.alloc(0);
    for (let attempt = 0; attempt < 20; attempt++) {
      png = Buffer.from(await answerWithin('a screenshot', this.driver.takeScreenshot()), 'base64');
      if (!endsUnpainted(png)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.setViewport(width, height);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, png);
  }

  nativeErrors() {
    return [];
  }

  async close() {
    // The session is the engine's: leave nothing of this page to the next one.
    await this.evaluate(() => sessionStorage.clear()).catch(() => undefined);
    await answerWithin('deleting cookies', this.driver.manage().deleteAllCookies()).catch(
      () => undefined,
    );
    await answerWithin('leaving the page', this.driver.get('about:blank')).catch(() => undefined);
  }
}
