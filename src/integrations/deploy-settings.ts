import type { AstroIntegration } from 'astro';
import { platformValue, settingProblems } from '../server/platform/settings.ts';

/**
 * What a deployed site cannot run without. Locally everything has a default (mail to .eml files,
 * a local encryption key); on Netlify those defaults would fail quietly (a read-only disk, a key
 * lost with its instance), so a production, preview or branch deploy stops at the build instead,
 * naming every missing setting, and every setting whose value cannot be read.
 */
const DEPLOY_CONTEXTS = new Set(['production', 'deploy-preview', 'branch-deploy']);

/** The problems with `env` for a deploy (none locally, or in Netlify's local tools). */
export function deployProblems(env: Record<string, string | undefined>): string[] {
  const deployed =
    platformValue('NETLIFY', env) === 'true' &&
    DEPLOY_CONTEXTS.has(platformValue('CONTEXT', env) ?? '');
  return deployed ? settingProblems(env, { deployed }) : [];
}

export default function deploySettings(): AstroIntegration {
  return {
    name: 'deploy-settings',
    hooks: {
      'astro:config:setup': ({ logger }) => {
        const problems = deployProblems(process.env);
        if (problems.length === 0) return;
        for (const problem of problems) logger.error(problem);
        throw new Error(
          `This ${process.env.CONTEXT} build stops here: set ${problems.length === 1 ? 'this setting' : 'these settings'} in the site's environment variables on Netlify, then deploy again.\n- ${problems.join('\n- ')}`,
        );
      },
    },
  };
}
