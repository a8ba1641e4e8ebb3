import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import subsetFont from 'subset-font';
import type { AstroIntegration } from 'astro';
import { decodeEntities, htmlFiles } from './security-headers';

/** Where the pages find the headings' face (src/styles/theme.css names it). */
export const HEADING_FACE_PATH = '/fonts/headings.woff2';

/** The face the subset is cut from: Spectral SemiBold, the Latin file @fontsource/spectral ships. */
const SOURCE = '@fontsource/spectral/files/spectral-latin-600-normal.woff2';

/**
 * Characters always kept: the digits and punctuation a heading a function fills in may show (a
 * session's length, "60-minute", is written into its booking page's heading at run time).
 */
const ALWAYS = "0123456789-.,:;!?&'’()";

/**
 * The headings' face, cut down at every build to the characters the built pages' headings use.
 *
 * The text set in `font-serif` (the `h1`–`h3` of every page, and every element with the class
 * `font-serif`: the studio's name in the header and footer, the prices, the events' dates) is
 * read from the built pages, with the headings a function or the desk writes (their literal text
 * in src/, the titles and names in content/), and Spectral SemiBold is subset to those
 * characters, without hinting or OpenType features (its kerning pairs would add 0.9 KB), to
 * `/fonts/headings.woff2`: 4.9 KB for today's 79 characters instead of the Latin file's 23 KB,
 * some 60 bytes a character. A new event's title with a new letter re-subsets at the next build.
 * A character the face still lacks (a heading a function fills in with a visitor's words) is
 * drawn in the fallback face, alone: the rest of the heading keeps the face. In `astro dev` the
 * whole Latin file is served at that address.
 */
export default function headingFace(): AstroIntegration {
  const require = createRequire(import.meta.url);
  const source = require.resolve(SOURCE);
  return {
    name: 'heading-face',
    hooks: {
      'astro:server:setup': ({ server }) => {
        server.middlewares.use(HEADING_FACE_PATH, (_request, response) => {
          void readFile(source).then((font) => {
            response.setHeader('Content-Type', 'font/woff2');
            response.end(font);
          });
        });
      },
      'astro:build:done': async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const text = new Set<string>();
        for (const file of await htmlFiles(root)) {
          for (const c of headingText(await readFile(file, 'utf8'))) text.add(c);
        }
        for (const c of await writtenLater(fileURLToPath(new URL('../../', import.meta.url)))) {
          text.add(c);
        }
        for (const c of ALWAYS) text.add(c);
        const font = await subsetFont(await readFile(source), [...text].join(''), {
          targetFormat: 'woff2',
          noHinting: true,
          noLayoutClosure: true,
          keepFeatures: [],
        });
        const out = join(root, HEADING_FACE_PATH);
        await mkdir(dirname(out), { recursive: true });
        await writeFile(out, font);
        logger.info(`${HEADING_FACE_PATH}: ${text.size} characters, ${font.length} bytes`);
      },
    },
  };
}

/**
 * The headings no built page shows, which a function or the desk writes: the literal text of the
 * headings in the sources (src/: pages, components, the server's renderers, the desk's islands)
 * and every title and name in content/, which the pages rendered on demand set as headings.
 */
async function writtenLater(project: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir(join(project, 'src'), {
    recursive: true,
    withFileTypes: true,
  })) {
    if (!entry.isFile() || !/\.(astro|tsx?)$/.test(entry.name)) continue;
    const source = await readFile(join(entry.parentPath, entry.name), 'utf8');
    parts.push(headingText(source.replace(/\$?\{[^{}]*\}/g, ' ')));
  }
  for (const entry of await readdir(join(project, 'content'), {
    recursive: true,
    withFileTypes: true,
  })) {
    if (!entry.isFile() || !/\.(md|ya?ml)$/.test(entry.name)) continue;
    const source = await readFile(join(entry.parentPath, entry.name), 'utf8');
    for (const [, value] of source.matchAll(/^[\s-]*(?:title|name):\s*(.+)$/gm)) {
      parts.push(value!.replace(/^(["'])(.*)\1$/, '$2'));
    }
  }
  return parts.join(' ');
}

/** The text of a page set in the headings' face: its `h1`–`h3` and its `font-serif` elements. */
export function headingText(html: string): string {
  const parts: string[] = [];
  const elements =
    /<(h[1-3])\b[^>]*>([\s\S]*?)<\/\1>|<(\w+)\b[^>]*\sclass(?:Name)?="[^"]*\bfont-serif\b[^"]*"[^>]*>([\s\S]*?)<\/\3>/g;
  for (const [, , heading, , serif] of html.matchAll(elements)) {
    parts.push(
      decodeEntities(
        (heading ?? serif ?? '')
          .replace(/<[^>]*>/g, '')
          .replace(/&nbsp;/g, ' ')
          .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
          .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16))),
      ),
    );
  }
  return parts.join(' ').replace(/\s+/g, ' ');
}
