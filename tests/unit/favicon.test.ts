import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAVICON_URL, svgDataUrl } from '../../src/lib/favicon';

describe('the icon written into each page', () => {
  it('is the same picture as public/favicon.svg, read back from its data: address', () => {
    const file = readFileSync(new URL('../../public/favicon.svg', import.meta.url), 'utf8');
    expect(FAVICON_URL.startsWith('data:image/svg+xml,')).toBe(true);
    const decoded = decodeURIComponent(FAVICON_URL.slice('data:image/svg+xml,'.length));
    expect(decoded).toBe(file.trim().replaceAll('"', "'"));
  });

  it('escapes what would end the attribute or the URL, and nothing a browser reads as-is', () => {
    const url = svgDataUrl('<svg fill="#fff" d="50%">\n  <g/>\n</svg>');
    expect(url).toBe("data:image/svg+xml,%3Csvg fill='%23fff' d='50%25'%3E %3Cg/%3E %3C/svg%3E");
    expect(url).not.toMatch(/["<>#]/);
  });
});
