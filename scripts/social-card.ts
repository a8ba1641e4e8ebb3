/**
 * Draws the 1200x630 card that link previews show (Open Graph, Twitter) from the studio's name
 * and tagline in content/site.yaml and the Home illustration, and writes
 * public/social-card.png. Run it again after changing those: `node scripts/social-card.ts`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { parse } from 'yaml';
import { escapeHtml as escape } from '../src/shared/html.ts';

const root = new URL('..', import.meta.url);
const site = parse(await readFile(new URL('content/site.yaml', root), 'utf8')) as {
  name: string;
  tagline: string;
  location?: string;
};
const hero = (await readFile(new URL('content/images/home-hero.svg', root), 'utf8'))
  .replace(/<\?xml[^>]*>\s*/, '')
  .replace(/<svg\b[^>]*>/, '<svg x="600" y="75" width="600" height="480" viewBox="0 0 600 480">');

const card = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">
  <rect width="1200" height="630" fill="#f2f6f3"/>
  <rect y="598" width="1200" height="32" fill="#3b5747"/>
  <text x="72" y="250" font-family="DejaVu Serif, Georgia, serif" font-size="68" font-weight="700" fill="#1e2a23">${escape(site.name.split(' ').slice(0, 2).join(' '))}</text>
  <text x="72" y="336" font-family="DejaVu Serif, Georgia, serif" font-size="68" font-weight="700" fill="#1e2a23">${escape(site.name.split(' ').slice(2).join(' '))}</text>
  <text x="72" y="410" font-family="DejaVu Sans, Arial, sans-serif" font-size="30" fill="#3b5747">${escape(site.tagline)}</text>
  ${site.location ? `<text x="72" y="462" font-family="DejaVu Sans, Arial, sans-serif" font-size="26" fill="#4a5650">${escape(site.location)}</text>` : ''}
  ${hero}
</svg>`;

const png = await sharp(Buffer.from(card)).png({ compressionLevel: 9, palette: true }).toBuffer();
await writeFile(new URL('public/social-card.png', root), png);
console.log(`public/social-card.png: 1200x630, ${png.length} bytes`);
