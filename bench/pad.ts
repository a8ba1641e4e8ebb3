/**
 * How soon the waiver's signature pad inks a stroke on a slow phone, from a cold page: the
 * phone of Lighthouse's mobile preset (4x slower CPU, 150 ms round trips, 1.6 Mbit/s down),
 * a finger touching the pad before any of the form's script has loaded. Measured in the page:
 * from the touch (its `pointerdown`) to the first frame with ink on the canvas; also when the
 * form's script had hydrated, and how much script the page loaded before the touch (target 0).
 *
 * Run alone: `node bench/pad.ts [origin]` against a served `dist/` (npm run bench runs it).
 */
import { chromium, type CDPSession } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../scripts/chromium.ts';

export interface PadRun {
  /** Touch to first ink, in milliseconds. */
  inkMs: number;
  /** Touch to the form's island hydrated, in milliseconds. */
  hydratedMs: number;
  /** Bytes of script the page loaded before the touch. */
  scriptBytesBeforeTouch: number;
}

// Lighthouse's mobile throttling, applied for real (devtools throttling), not simulated.
const PHONE = { latencyMs: 150, downBytesPerSecond: (1.6 * 1024 * 1024) / 8, cpuSlowdown: 4 };

// Installed before the page's own scripts: notes the touch, then looks for ink every frame.
const PROBE = `
  window.__pad = {};
  document.addEventListener('pointerdown', (event) => {
    if (!(event.target instanceof HTMLCanvasElement) || window.__pad.touch) return;
    window.__pad.touch = performance.now();
    const canvas = event.target;
    const look = () => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] < 128 && data[i + 3] > 128) return void (window.__pad.ink = performance.now());
      }
      requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
    const island = canvas.closest('astro-island');
    const hydrated = () => !island?.hasAttribute('ssr');
    const wait = () => (hydrated() ? (window.__pad.hydrated = performance.now()) : setTimeout(wait, 5));
    wait();
  }, true);
`;

async function touchStroke(cdp: CDPSession, x: number, y: number, width: number) {
  const point = (dx: number, dy: number) => [{ x: x + dx, y: y + dy, id: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(0, 0) });
  for (let i = 1; i <= 12; i++) {
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: point((i * width) / 20, 10 * Math.sin(i / 2)),
    });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

export async function measurePad(
  origin: string,
  options: { runs?: number; chromePath?: string } = {},
): Promise<PadRun[]> {
  const browser = await chromium.launch({
    executablePath: options.chromePath ?? process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
  const runs: PadRun[] = [];
  try {
    for (let run = 0; run < (options.runs ?? 5); run++) {
      const context = await browser.newContext({
        viewport: { width: 375, height: 667 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      const page = await context.newPage();
      let scriptBytes = 0;
      let touched = false;
      page.on('response', async (response) => {
        if (touched || response.request().resourceType() !== 'script') return;
        scriptBytes += (await response.body().catch(() => Buffer.alloc(0))).length;
      });
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: PHONE.latencyMs,
        downloadThroughput: PHONE.downBytesPerSecond,
        uploadThroughput: PHONE.downBytesPerSecond / 2,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: PHONE.cpuSlowdown });
      await page.addInitScript(PROBE);
      await page.goto(`${origin}/waiver`, { waitUntil: 'load' });
      const pad = page.locator('canvas[data-signature-pad]');
      await pad.scrollIntoViewIfNeeded();
      const box = (await pad.boundingBox())!;
      touched = true;
      await touchStroke(cdp, box.x + box.width * 0.2, box.y + box.height * 0.5, box.width);
      await page.waitForFunction(
        () =>
          (window as never as { __pad: { ink?: number; hydrated?: number } }).__pad.ink &&
          (window as never as { __pad: { hydrated?: number } }).__pad.hydrated,
        undefined,
        { timeout: 60_000 },
      );
      const times = await page.evaluate(
        () => (window as never as { __pad: Record<string, number> }).__pad,
      );
      runs.push({
        inkMs: times.ink! - times.touch!,
        hydratedMs: times.hydrated! - times.touch!,
        scriptBytesBeforeTouch: scriptBytes,
      });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return runs;
}

if (import.meta.main) {
  const origin = process.argv[2] ?? 'http://127.0.0.1:8888';
  const runs = await measurePad(origin);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  console.log(runs);
  console.log(
    `pad: ink ${median(runs.map((r) => r.inkMs)).toFixed(0)} ms after the touch (target ≤ 300), ` +
      `form hydrated after ${median(runs.map((r) => r.hydratedMs)).toFixed(0)} ms, ` +
      `script before the touch ${Math.max(...runs.map((r) => r.scriptBytesBeforeTouch))} bytes`,
  );
}
