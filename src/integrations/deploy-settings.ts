import type { AstroIntegration } from 'astro';

/**
 * What a deployed site cannot run without. Locally everything has a default (mail to .eml files,
 * a local encryption key); on Netlify those defaults would fail quietly (a read-only disk, a key
 * lost with its instance), so a production, preview or branch deploy stops at the build instead,
 * naming every missing setting.
 */
export const REQUIRED_WHEN_DEPLOYED = {
  SMTP_URL:
    'the mail server the functions send through, e.g. smtps://user:password@smtp.example.com',
  MAIL_FROM: 'the sender of every mail, e.g. "Still Point Pilates" <studio@example.com>',
  WAIVER_ENCRYPTION_KEY: "32 random bytes in base64 that encrypt the waivers' health information",
} as const;

const DEPLOY_CONTEXTS = new Set(['production', 'deploy-preview', 'branch-deploy']);

/** The problems with `env` for a deploy (none locally, or in Netlify's local tools). */
export function deployProblems(env: NodeJS.ProcessEnv): string[] {
  if (env.NETLIFY !== 'true' || !DEPLOY_CONTEXTS.has(env.CONTEXT ?? '')) return [];
  const problems: string[] = [];
  for (const [name, what] of Object.entries(REQUIRED_WHEN_DEPLOYED)) {
    if (!env[name]?.trim()) problems.push(`${name} is not set: ${what}.`);
  }
  const key = env.WAIVER_ENCRYPTION_KEY?.trim();
  if (key && keyBytes(key) !== 32) {
    problems.push('WAIVER_ENCRYPTION_KEY must be 32 bytes, written as base64 or hex.');
  }
  if (env.BUILD_NOW?.trim()) {
    problems.push(
      'BUILD_NOW is set: it stops the clock the Events page is built with (for tests only); remove it.',
    );
  }
  const smtp = env.SMTP_URL?.trim();
  if (smtp && !/^smtps?:$/.test(safeProtocol(smtp))) {
    problems.push('SMTP_URL must be an smtp:// or smtps:// address.');
  }
  return problems;
}

function keyBytes(value: string): number {
  if (/^[0-9a-f]{64}$/i.test(value)) return 32;
  return /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64').length : 0;
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
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
