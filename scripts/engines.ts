/**
 * Finds the two other browser engines the cross-engine suite (tests/engines/) drives. When one
 * is missing, `ensureEngines()` (which `npm test` and `node scripts/engines.ts` call) installs
 * Debian's packages if it runs as root, and otherwise stops saying how to get them:
 *
 * - Gecko: Firefox ESR (`firefox-esr`), driven over WebDriver BiDi, which Firefox serves itself,
 *   so no geckodriver is needed (Debian has no package for it).
 * - WebKit: WebKitGTK's WebDriver server `WebKitWebDriver` (`webkit2gtk-driver`) and the
 *   MiniBrowser it launches, which needs an X display: `xvfb-run` (`xvfb`, `xauth`) gives it one.
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

export interface Engines {
  firefox: string;
  webkitDriver: string;
  xvfbRun: string;
}

const PACKAGES = ['firefox-esr', 'webkit2gtk-driver', 'xvfb', 'xauth'];

const firstExisting = (...paths: (string | undefined)[]) =>
  paths.find((path) => path && existsSync(path));

export function findEngines(): Partial<Engines> {
  return {
    firefox: firstExisting(process.env.FIREFOX_PATH, '/usr/bin/firefox-esr', '/usr/bin/firefox'),
    webkitDriver: firstExisting(process.env.WEBKIT_DRIVER_PATH, '/usr/bin/WebKitWebDriver'),
    xvfbRun: firstExisting('/usr/bin/xvfb-run'),
  };
}

const missing = (found: Partial<Engines>) =>
  (['firefox', 'webkitDriver', 'xvfbRun'] as const).filter((key) => !found[key]);

export function ensureEngines(): Engines {
  let found = findEngines();
  if (missing(found).length === 0) return found as Engines;
  if (process.getuid?.() === 0) {
    console.log(`Installing Debian's ${PACKAGES.join(', ')} for the cross-engine tests...`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    spawnSync('apt-get', ['install', '-y', '-qq', ...PACKAGES], {
      stdio: 'inherit',
      env,
    });
    found = findEngines();
    if (missing(found).length === 0) return found as Engines;
  }
  console.error(
    `No ${missing(found).join(', ')} for the cross-engine tests: install them (as root: apt-get install ${PACKAGES.join(' ')}) or set FIREFOX_PATH / WEBKIT_DRIVER_PATH.`,
  );
  process.exit(1);
}

if (import.meta.main) {
  const engines = ensureEngines();
  for (const [name, path] of Object.entries(engines)) console.log(`${name}: ${path}`);
}
