import 'astro';

declare module 'astro' {
  interface AstroClientDirectives {
    /** `{ hash }`: an address whose fragment starts with it hydrates the island on load. */
    'client:interaction'?: boolean | { hash: string };
  }
}
