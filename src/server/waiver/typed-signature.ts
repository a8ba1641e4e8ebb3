/**
 * A typed name drawn as a signature image, for a waiver sent without JavaScript: the same kind
 * of PNG the signature pad makes (2:1, black ink on white), so the stored record and the PDF
 * look as they do for a drawn signature, and the audit trail says it was typed.
 *
 * Drawn here rather than with a canvas library: those are native binaries (tens of MB in every
 * function bundle) for what is one line of text. opentype.js gives the glyphs' outlines in a
 * handwriting font (Dancing Script, SIL Open Font License, shipped through `included_files`);
 * the few lines below fill them, anti-aliased, into a pngjs image. The same name always gives
 * the same image.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import opentype, { type Font, type PathCommand } from 'opentype.js';
import { PNG } from 'pngjs';

const WIDTH = 800;
const HEIGHT = 400;
const SUBSAMPLES = 4;

// The Latin subset first, then the extended Latin and Vietnamese ones for the letters it lacks
// (ł, ő, ț, ễ, ...). Dancing Script has no Greek or Cyrillic: for those the name is written in
// DejaVu Sans (the PDF's font), upright but legible, rather than as a row of empty boxes.
const FONT_FILES = [
  '@fontsource/dancing-script/files/dancing-script-latin-400-normal.woff',
  '@fontsource/dancing-script/files/dancing-script-latin-ext-400-normal.woff',
  '@fontsource/dancing-script/files/dancing-script-vietnamese-400-normal.woff',
  'dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
];

let fonts: Font[] | undefined;

function loadFonts(): Font[] {
  const require = createRequire(import.meta.url);
  fonts ??= FONT_FILES.map((file) => {
    const data = readFileSync(require.resolve(file));
    return opentype.parse(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  });
  return fonts;
}

type Segment = [x0: number, y0: number, x1: number, y1: number];

/** The PNG of `name` written in the handwriting font, centred on a 2:1 white image. */
export function typedSignaturePng(name: string): Buffer {
  const text = name.trim();
  const segments = outline(text);
  const image = new PNG({ width: WIDTH, height: HEIGHT });
  image.data.fill(255);
  fill(segments, image);
  // Grey levels are all a signature has: a greyscale PNG is a quarter of the size, and quick.
  return PNG.sync.write(image, { colorType: 0 });
}

/** The glyph outlines of `text`, sized to fit, as straight segments. */
function outline(text: string): Segment[] {
  const available = loadFonts();
  const glyphs = [...text].map((character) => {
    const font =
      available.find((candidate) => candidate.charToGlyph(character).index !== 0) ?? available[0];
    return { font, character };
  });
  const unitWidth = glyphs.reduce(
    (total, { font, character }) => total + font.getAdvanceWidth(character, 1),
    0,
  );
  const size = Math.min(HEIGHT * 0.42, (WIDTH * 0.88) / Math.max(unitWidth, 0.01));
  let x = (WIDTH - unitWidth * size) / 2;
  const baseline = HEIGHT * 0.62;
  const segments: Segment[] = [];
  for (const { font, character } of glyphs) {
    flatten(font.getPath(character, x, baseline, size).commands, segments);
    x += font.getAdvanceWidth(character, size);
  }
  return segments;
}

/** Curves become short straight segments (fine enough at this size to look smooth). */
function flatten(commands: PathCommand[], into: Segment[]) {
  let [startX, startY, x, y] = [0, 0, 0, 0];
  const line = (toX: number, toY: number) => {
    if (toY !== y) into.push([x, y, toX, toY]);
    [x, y] = [toX, toY];
  };
  for (const command of commands) {
    if (command.type === 'M') {
      [startX, startY, x, y] = [command.x, command.y, command.x, command.y];
    } else if (command.type === 'L') {
      line(command.x, command.y);
    } else if (command.type === 'Q' || command.type === 'C') {
      const [x0, y0] = [x, y];
      const steps = Math.max(4, Math.ceil(Math.hypot(command.x - x0, command.y - y0) / 3));
      for (let i = 1; i <= steps; i++) {
        const t = i / steps;
        const u = 1 - t;
        if (command.type === 'Q') {
          line(
            u * u * x0 + 2 * u * t * command.x1 + t * t * command.x,
            u * u * y0 + 2 * u * t * command.y1 + t * t * command.y,
          );
        } else {
          line(
            u ** 3 * x0 +
              3 * u * u * t * command.x1 +
              3 * u * t * t * command.x2 +
              t ** 3 * command.x,
            u ** 3 * y0 +
              3 * u * u * t * command.y1 +
              3 * u * t * t * command.y2 +
              t ** 3 * command.y,
          );
        }
      }
    } else if (command.type === 'Z') {
      line(startX, startY);
    }
  }
}

/** Fills the outlines (non-zero winding), several scanlines per pixel row for soft edges. */
function fill(segments: Segment[], image: PNG) {
  // Each pixel row looks only at the segments that reach into it.
  const rows: Segment[][] = Array.from({ length: HEIGHT }, () => []);
  for (const segment of segments) {
    const top = Math.max(0, Math.floor(Math.min(segment[1], segment[3])));
    const bottom = Math.min(HEIGHT - 1, Math.floor(Math.max(segment[1], segment[3])));
    for (let row = top; row <= bottom; row++) rows[row].push(segment);
  }
  const coverage = new Float32Array(WIDTH);
  const crossings: [x: number, winding: number][] = [];
  for (let row = 0; row < HEIGHT; row++) {
    const candidates = rows[row];
    if (candidates.length === 0) continue;
    coverage.fill(0);
    for (let sub = 0; sub < SUBSAMPLES; sub++) {
      const scanY = row + (sub + 0.5) / SUBSAMPLES;
      crossings.length = 0;
      for (const [x0, y0, x1, y1] of candidates) {
        if ((y0 <= scanY && y1 > scanY) || (y1 <= scanY && y0 > scanY)) {
          crossings.push([x0 + ((scanY - y0) / (y1 - y0)) * (x1 - x0), y1 > y0 ? 1 : -1]);
        }
      }
      crossings.sort((a, b) => a[0] - b[0]);
      let winding = 0;
      for (let i = 0; i < crossings.length - 1; i++) {
        winding += crossings[i][1];
        if (winding !== 0) addSpan(coverage, crossings[i][0], crossings[i + 1][0]);
      }
    }
    for (let column = 0; column < WIDTH; column++) {
      const ink = Math.min(1, coverage[column] / SUBSAMPLES);
      if (ink <= 0) continue;
      const offset = (row * WIDTH + column) * 4;
      const shade = Math.round(255 * (1 - ink));
      image.data[offset] = image.data[offset + 1] = image.data[offset + 2] = shade;
    }
  }
}

/** Adds the horizontal span [from, to) to a row, partly covering the pixels at its ends. */
function addSpan(coverage: Float32Array, from: number, to: number) {
  const start = Math.max(0, from);
  const end = Math.min(WIDTH, to);
  for (let column = Math.floor(start); column < end; column++) {
    coverage[column] += Math.min(end, column + 1) - Math.max(start, column);
  }
}
