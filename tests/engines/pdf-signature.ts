import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfImage {
  width: number;
  height: number;
  /** Pixels darker than mid-grey (and not transparent): the ink. */
  dark: number;
}

interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

/**
 * The images a PDF draws, decoded by pdf.js, with their dark pixels counted. The waiver PDF has
 * one image, the signature: read from the file itself, it shows what the studio's records hold,
 * whatever the page layout around it.
 */
export async function pdfImages(data: Uint8Array): Promise<PdfImage[]> {
  const task = getDocument({
    data: new Uint8Array(data),
    verbosity: 0,
    isOffscreenCanvasSupported: false,
  });
  const pdf = await task.promise;
  const images: PdfImage[] = [];
  try {
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const { fnArray, argsArray } = await page.getOperatorList();
      for (let i = 0; i < fnArray.length; i++) {
        if (fnArray[i] !== OPS.paintImageXObject) continue;
        const name = (argsArray[i] as [string])[0];
        const objects = name.startsWith('g_') ? page.commonObjs : page.objs;
        const image = await new Promise<DecodedImage>((resolve) =>
          objects.get(name, (value: DecodedImage) => resolve(value)),
        );
        images.push({ width: image.width, height: image.height, dark: darkPixels(image) });
      }
    }
  } finally {
    await task.destroy();
  }
  return images;
}

/** pdf.js image kinds: 1 = 1 bit grey, 2 = RGB, 3 = RGBA. */
function darkPixels({ width, height, kind, data }: DecodedImage): number {
  let dark = 0;
  if (kind === 3 || kind === 2) {
    const step = kind === 3 ? 4 : 3;
    for (let i = 0; i < data.length; i += step) {
      const opaque = kind === 2 || data[i + 3]! > 128;
      if (opaque && data[i]! < 128 && data[i + 1]! < 128 && data[i + 2]! < 128) dark++;
    }
  } else if (kind === 1) {
    const rowBytes = Math.ceil(width / 8);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
        if (bit === 0) dark++;
      }
    }
  } else {
    throw new Error(`Unknown pdf.js image kind ${kind}`);
  }
  return dark;
}
