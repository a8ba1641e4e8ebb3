/** subset-font 2 ships no types, and @types/subset-font lacks the options used here. */
declare module 'subset-font' {
  interface SubsetFontOptions {
    targetFormat?: 'sfnt' | 'woff' | 'woff2';
    /** Drop the hinting instructions (`hb-subset --no-hinting`). */
    noHinting?: boolean;
    /** No glyph closure over the layout substitutions (`hb-subset --no-layout-closure`). */
    noLayoutClosure?: boolean;
    /** The OpenType features to keep: none when empty. */
    keepFeatures?: string[];
  }
  export default function subsetFont(
    font: Buffer,
    text: string,
    options?: SubsetFontOptions,
  ): Promise<Buffer>;
}
