/**
 * The content editor at /admin (src/pages/admin.astro): its script, Decap CMS with the checks of
 * src/editor/, bundled by esbuild into `/admin/editor.js`, and its configuration, made from the
 * content schemas, as `/admin/config.json`. Only the editor's page loads either: no public page
 * carries a byte of it, and the site's own bundles are made without it. `astro dev` serves both
 * from memory, made again on each request for them.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { build } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { editorCollections, type EditorContext } from '../editor/collections.ts';
import { editorConfig, type Backend } from '../editor/config.ts';
import { RETENTION_KINDS } from './content-check.ts';

export const EDITOR_SCRIPT = '/admin/editor.js';
export const EDITOR_CONFIG = '/admin/config.json';
export const EDITOR_STYLES = '/admin/editor.css';

/** What the editor needs to know of the site to check its files: see collections.ts. */
export function editorContext(root: string): EditorContext {
  let timeZone: string | undefined;
  try {
    const site = parseYaml(readFileSync(join(root, 'content/site.yaml'), 'utf8')) as {
      timeZone?: unknown;
    };
    if (typeof site?.timeZone === 'string') timeZone = site.timeZone;
  } catch {
    // The build's content check says what is wrong with site.yaml.
  }
  return { retentionKinds: RETENTION_KINDS, timeZone };
}

/**
 * The repository the deployed site is built from, as Netlify's build tells it (`REPOSITORY_URL`,
 * `BRANCH`): where the editor commits. Locally the editor writes the working copy instead.
 */
export function deployedRepository(env: NodeJS.ProcessEnv = process.env): Backend {
  const url = env.REPOSITORY_URL ?? '';
  const repo = /github\.com[/:]([^/]+\/[^/]+?)(?:\.git)?\/?$/.exec(url)?.[1] ?? 'unknown/unknown';
  return { repo, branch: env.BRANCH || 'main' };
}

/** The configuration and what the editor's checks need, as `/admin/config.json` holds them. */
export function editorFiles(root: string, site: string) {
  const context = editorContext(root);
  const config = editorConfig(editorCollections(context), deployedRepository(), site);
  return { config, context };
}

/** The editor's script: Decap CMS and src/editor/main.ts, for the browser. */
export async function editorScript(root: string): Promise<string> {
  const result = await build({
    entryPoints: [join(root, 'src/editor/main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export default function contentEditor(): AstroIntegration {
  let root = '';
  let site = '';
  return {
    name: 'content-editor',
    hooks: {
      'astro:config:done': ({ config }) => {
        root = fileURLToPath(config.root);
        site = config.site ?? '';
      },
      'astro:server:setup': ({ server }) => {
        server.middlewares.use((req, res, next) => {
          const path = new URL(req.url ?? '/', 'http://dev').pathname;
          const made =
            path === EDITOR_SCRIPT
              ? editorScript(root).then((code) => ['text/javascript', code] as const)
              : path === EDITOR_CONFIG
                ? Promise.resolve([
                    'application/json',
                    JSON.stringify(editorFiles(root, site)),
                  ] as const)
                : path === EDITOR_STYLES
                  ? readFile(join(root, 'src/editor/phone.css'), 'utf8').then(
                      (css) => ['text/css', css] as const,
                    )
                  : undefined;
          if (!made) return next();
          made.then(
            ([type, body]) => {
              res.writeHead(200, {
                'content-type': `${type}; charset=utf-8`,
                'cache-control': 'no-store',
              });
              res.end(body);
            },
            (error: unknown) => next(error),
          );
        });
      },
      'astro:build:done': async ({ dir, logger }) => {
        const out = fileURLToPath(new URL('admin/', dir));
        await mkdir(out, { recursive: true });
        const code = await editorScript(root);
        await writeFile(join(out, 'editor.js'), code);
        await writeFile(
          join(out, 'editor.css'),
          await readFile(join(root, 'src/editor/phone.css')),
        );
        await writeFile(
          join(out, 'config.json'),
          `${JSON.stringify(editorFiles(root, site), null, 1)}\n`,
        );
        const headers = join(fileURLToPath(dir), '_headers');
        const current = await readFile(headers, 'utf8').catch(() => '');
        await writeFile(headers, `${current.replace(/\n*$/, '\n')}\n${EDITOR_HEADERS}`);
        logger.info(
          `The content editor: ${(code.length / 1024 / 1024).toFixed(1)} MB of script at ${EDITOR_SCRIPT}`,
        );
      },
    },
  };
}

/** The editor's files: private (never indexed), checked again on every load. */
const EDITOR_HEADERS = `# The content editor's script and configuration (src/integrations/content-editor.ts).
/admin/*
  X-Robots-Tag: noindex, nofollow
  Cache-Control: no-cache
`;
