// @ts-check
import { defineConfig } from 'astro/config';
import react from '@astrojs/react';
import sitemap from '@astrojs/sitemap';
import tailwindcss from '@tailwindcss/vite';
import netlify from '@netlify/vite-plugin';
import interactionDirective from './src/integrations/interaction-directive.ts';
import securityHeaders from './src/integrations/security-headers.ts';

const site = process.env.SITE_URL ?? process.env.URL ?? 'http://127.0.0.1:8888';

export default defineConfig({
  site,
  output: 'static',
  trailingSlash: 'never',
  build: { format: 'file', inlineStylesheets: 'always' },
  integrations: [
    react(),
    // The 404 page and the records desk (the studio's, not the public's) are left out.
    sitemap({ filter: (page) => !/\/404\/?$/.test(page) && !/\/records(\/|$)/.test(page) }),
    interactionDirective(),
    securityHeaders(),
  ],
  vite: {
    plugins: [
      tailwindcss(),
      netlify({
        edgeFunctions: { enabled: false },
        images: { enabled: false },
        aiGateway: { enabled: false },
        geolocation: { enabled: false },
      }),
    ],
  },
});
