import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';

/**
 * `client:interaction` hydrates an island on the visitor's first pointer, focus or key
 * interaction with it, so pages that never need the island never download its JavaScript.
 */
export default function interactionDirective(): AstroIntegration {
  return {
    name: 'client:interaction',
    hooks: {
      'astro:config:setup': ({ addClientDirective }) => {
        addClientDirective({
          name: 'interaction',
          entrypoint: fileURLToPath(new URL('../directives/interaction.ts', import.meta.url)),
        });
      },
    },
  };
}
