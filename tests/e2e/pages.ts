import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

/** Every built page as the path a visitor asks for (`/about`, `/`), the 404 page as an unknown path. */
export function builtPages(): string[] {
  const dist = resolve(import.meta.dirname, '../../dist');
  return readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.html'))
    .map((file) => `/${file.replace(/\.html$/, '').replace(/(^|\/)index$/, '')}`)
    .map((path) => (path === '/404' ? '/no-such-page' : path))
    .sort();
}
