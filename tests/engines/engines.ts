import type { EngineName } from './browsers.ts';

const KNOWN: readonly EngineName[] = ['firefox', 'webkit', 'chromium'];

/**
 * The engines this run covers: `ENGINES=firefox,webkit` by default. `chromium` (through
 * puppeteer-core) is there to take the reference screenshots and to check a test itself.
 */
export function selectedEngines(): EngineName[] {
  const names = (process.env.ENGINES ?? 'firefox,webkit')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!KNOWN.includes(name as EngineName)) {
      throw new Error(`ENGINES: unknown engine "${name}" (known: ${KNOWN.join(', ')})`);
    }
  }
  return names as EngineName[];
}
