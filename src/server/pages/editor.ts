/**
 * The headers of the content editor's page (src/pages/admin.astro): the studio's own page, never
 * stored or indexed, under a Content-Security-Policy of its own (security-headers.ts). It is
 * rendered on demand so that it carries that policy alone: Netlify adds the `_headers` rules of
 * `/*`, the site's policy among them, to every static file of a path, and two policies both apply.
 */
import { editorContentSecurityPolicy } from '../../integrations/security-headers';
import { PERSONAL } from '../platform/on-demand';

export const EDITOR_HEADERS: Readonly<Record<string, string>> = {
  ...PERSONAL,
  'content-security-policy': editorContentSecurityPolicy(),
  // Signing in opens the git host's page through Netlify in a window that answers this one.
  'cross-origin-opener-policy': 'same-origin-allow-popups',
};
