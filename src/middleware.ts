import { defineMiddleware } from 'astro:middleware';
import { finishPage } from './server/platform/on-demand';

/**
 * A page rendered on demand leaves as a built page does: island scripts after parsing, only the
 * styles it uses, the built `_headers` of its path with its style's hash in the policy, and
 * compressed (src/server/platform/on-demand.ts). Built pages are finished by the build's own
 * integrations; `astro dev` serves pages as they are.
 */
export const onRequest = defineMiddleware(async (context, next) => {
  const response = await next();
  if (context.isPrerendered || import.meta.env.DEV) return response;
  return finishPage(context.request, response);
});
