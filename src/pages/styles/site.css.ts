import type { APIRoute } from 'astro';
import css from '../../styles/global.css?inline';

/**
 * The site's style sheet as a file, for the pages a function writes itself (a form's answer to
 * a post without script): the built pages inline their CSS instead, to draw at once.
 */
export const GET: APIRoute = () =>
  new Response(css, { headers: { 'content-type': 'text/css; charset=utf-8' } });
