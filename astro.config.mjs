// @ts-check
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'astro/config';
import netlify from '@astrojs/netlify';
import react from '@astrojs/react';
import sitemap from '@astrojs/sitemap';
import tailwindcss from '@tailwindcss/vite';
import interactionDirective from './src/integrations/interaction-directive.ts';
import islandScripts from './src/integrations/island-scripts.ts';
import pageStyles from './src/integrations/page-styles.ts';
import headingFace from './src/integrations/heading-face.ts';
import securityHeaders from './src/integrations/security-headers.ts';
import onDemandRoutes from './src/integrations/on-demand-routes.ts';
import deploySettings from './src/integrations/deploy-settings.ts';
import contentCheck from './src/integrations/content-check.ts';
import contentEditor from './src/integrations/content-editor.ts';
import { localSiteUrl, platformValue, readSetting } from './src/server/platform/settings.ts';

/**
 * `astro dev` only: the functions run as `npm start` runs them, beside the dev server
 * (scripts/server/dev.ts). Loaded here, while Astro reads this file: an `import()` in a hook runs
 * after Astro has closed the loader of this file, and fails.
 */
const command = process.argv.slice(2);
const devFunctions = command.includes('dev')
  ? (await import('./scripts/server/dev.ts')).default()
  : undefined;

// The address every built page writes (canonical, og:url, sitemap, calendar files, the Events
// page's subscribe link): SITE_URL, else Netlify's URL, else where `npm start` listens.
const site = readSetting('SITE_URL')?.origin ?? platformValue('URL') ?? localSiteUrl();

// What the functions read at run time (netlify.toml's `included_files`, said once there) ships
// with the on-demand pages' function too, with the island scripts whose classes a page can use.
const includedFiles = [
  ...(
    /included_files\s*=\s*\[([^\]]*)\]/.exec(readFileSync('netlify.toml', 'utf8'))?.[1] ?? ''
  ).matchAll(/"([^"]+)"/g),
].map(([, file]) => file);

// Pages that are only ever arrived at (the 404 page, a form's "sent" page): noindex, not listed.
// The pages of one booking or one address (a token in their link) too, and a refused form's page.
const UNLISTED =
  /\/(404|contact\/sent|waiver\/signed|consultation\/manage|consultation\/taken|book\/manage|classes\/manage|classes\/claim|classes\/waiting|notify\/sent|notify\/confirm|notify\/unsubscribe|refused)\/?$/;

// The booking page of each session booked on the site (`/book/<file>`, rendered on demand from a
// parameter, so the sitemap cannot see it by itself): a session file that says `where:`.
const bookingPages = readdirSync('content/sessions')
  .filter((file) => /^where:/m.test(readFileSync(join('content/sessions', file), 'utf8')))
  .map((file) => new URL(`/book/${file.replace(/\.md$/, '')}`, site).href);

export default defineConfig({
  site,
  output: 'static',
  // Pages that depend on the moment (`export const prerender = false`) are rendered on demand by
  // Netlify's adapter, on Netlify and under `npm start` (scripts/server/functions.ts).
  // Only when building: the adapter empties its function's folder whenever it is set up, and
  // `astro dev`, `astro check` and the function tests (Astro's Vite setup) set it up too.
  adapter: command.includes('build')
    ? netlify({
        devFeatures: false,
        imageCDN: false,
        includeFiles: [...includedFiles, 'dist/_astro/*.js'],
      })
    : undefined,
  trailingSlash: 'never',
  // No Astro sessions: the desk keeps its own (src/server/auth/sessions.ts). Without this, the
  // Netlify adapter turns on sessions in Netlify Blobs, and says so in every build's output.
  session: false,
  server: { host: '127.0.0.1' },
  build: { format: 'file', inlineStylesheets: 'always' },
  // The forms' own guard checks where a post comes from, and answers in the product's words
  // (src/server/request/guard.ts); an unsubscribe link takes a mail client's cookie-less POST.
  security: { checkOrigin: false },
  integrations: [
    // content/ checked first: a mistake is told in the instructor's words, and nothing else.
    contentCheck(),
    deploySettings(),
    react(),
    // Pages only ever arrived at, the records desk and the content editor (the studio's own).
    sitemap({
      filter: (page) => !UNLISTED.test(page) && !/\/(records|admin)(\/|$)/.test(page),
      customPages: bookingPages,
    }),
    interactionDirective(),
    // The headings' face, subset to the characters the built pages' headings use.
    headingFace(),
    // Each page's styles cut to what it uses, then hashed for the Content-Security-Policy.
    pageStyles(),
    // Astro's island scripts wait until the page is parsed (same code, same hashes).
    islandScripts(),
    securityHeaders(),
    // The content editor's script and configuration, for /admin alone (after the headers: it adds
    // its files' rule to them).
    contentEditor(),
    onDemandRoutes({ files: includedFiles }),
    ...(devFunctions ? [devFunctions] : []),
  ],
  vite: {
    plugins: [tailwindcss()],
  },
});
