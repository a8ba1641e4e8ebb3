/**
 * Finds a Chromium for the browser tests: CHROMIUM_PATH, Debian's /usr/bin/chromium, or
 * Playwright's own build. When there is none, `ensureChromium()` (which `npm test` and
 * `node scripts/chromium.ts` call) tries `npx playwright install chromium`, then, as root, Debian's
 * `chromium` package, and otherwise stops saying how to get one.
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** Chromium's flags here: no sandbox as root, and no calls to Google's services (no network). */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  for (const path of candidates) if (path && existsSync(path)) return path;
  const own = spawnSync(
    process.execPath,
    ['-e', "console.log(require('playwright-core').chromium.executablePath())"],
    {
      encoding: 'utf8',
    },
  );
  const ownPath = own.stdout?.trim();
  return ownPath && existsSync(ownPath) ? ownPath : undefined;
}

export function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  console.log('No Chromium found: trying `npx playwright install chromium`...');
  spawnSync('npx', ['playwright', 'install', 'chromium'], { stdio: 'inherit' });
  const own = findChromium();
  if (own) return own;
  if (process.getuid?.() === 0) {
    console.log("Trying Debian's chromium package...");
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    const debian = findChromium();
    if (debian) return debian;
  }
  console.error(
    'No Chromium for the browser tests: install it (as root: apt-get install chromium) or set CHROMIUM_PATH.',
  );
  process.exit(1);
}

if (import.meta.main) console.log(ensureChromium());
