/**
 * The daily rebuild (functions/daily-rebuild.ts) against a real HTTP server standing in for
 * Netlify's build hook: on Netlify it POSTs to BUILD_HOOK_URL once per run; without the setting
 * it says so in the log, once; anywhere else it does nothing.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { dailyTime } from '../../src/server/platform/schedule';

interface Hit {
  method: string;
  url: string;
  body: string;
}

let hook: Server;
let hookUrl: string;
let hits: Hit[] = [];
let answerWith = 200;

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });

beforeAll(async () => {
  hook = createServer((req, res) => {
    void read(req).then((body) => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', body });
      res.writeHead(answerWith, { 'content-type': 'text/plain' }).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/build_hooks/5c23354f454e1350f8543e78`;
});

afterAll(async () => {
  await new Promise((resolve) => hook.close(resolve));
});

let logged: string[] = [];

beforeEach(() => {
  hits = [];
  answerWith = 200;
  logged = [];
  for (const level of ['error', 'info', 'warn'] as const) {
    vi.spyOn(console, level).mockImplementation((...args) => void logged.push(args.join(' ')));
  }
  // Each test gets the function with fresh module state (the once-per-instance log lines).
  vi.resetModules();
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const load = async () => import('../../functions/daily-rebuild');
const deployed = () => vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'daily-rebuild');

describe('the daily-rebuild scheduled function', () => {
  test('runs once a day, at 10:00 UTC (2 or 3 AM in Portland)', async () => {
    const { config } = await load();
    expect(config.schedule).toBe('0 10 * * *');
  });

  test('on Netlify, POSTs once to the build hook with a deploy title, and says so', async () => {
    deployed();
    vi.stubEnv('BUILD_HOOK_URL', hookUrl);
    const answer = await (await load()).default();
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ success: true });
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit.method).toBe('POST');
    expect(hit.body).toBe('{}');
    const url = new URL(hit.url, hookUrl);
    expect(url.pathname).toBe('/build_hooks/5c23354f454e1350f8543e78');
    expect(url.searchParams.get('trigger_title')).toBe(
      'Daily rebuild: past events leave the Events page',
    );
    expect(logged).toEqual(['daily-rebuild: a build of the site was requested']);
  });

  test('on Netlify without BUILD_HOOK_URL, names the setting in the log once, and answers 500', async () => {
    deployed();
    vi.stubEnv('BUILD_HOOK_URL', '');
    const { default: run } = await load();
    const first = await run();
    const second = await run();
    expect(first.status).toBe(500);
    expect(await first.json()).toEqual({ success: false, error: 'BUILD_HOOK_URL is not set.' });
    expect(second.status).toBe(500);
    expect(logged).toEqual([
      "Configuration: BUILD_HOOK_URL is not set: past events stay on the Events page until the next deploy. Set it in the site's environment variables.",
    ]);
    expect(hits).toEqual([]);
  });

  test('on Netlify with a BUILD_HOOK_URL that is not a web address, says so and sends nothing', async () => {
    deployed();
    vi.stubEnv('BUILD_HOOK_URL', 'api.netlify.com/build_hooks/abc');
    const answer = await (await load()).default();
    expect(answer.status).toBe(500);
    expect(logged).toEqual([
      "Configuration: BUILD_HOOK_URL must be an address like https://studio.example. Set it in the site's environment variables.",
    ]);
    expect(hits).toEqual([]);
  });

  test('a hook that refuses or cannot be reached answers 502, logging the status, never the secret URL', async () => {
    deployed();
    vi.stubEnv('BUILD_HOOK_URL', hookUrl);
    answerWith = 404;
    const refused = await (await load()).default();
    expect(refused.status).toBe(502);
    expect(hits).toHaveLength(1);

    vi.stubEnv('BUILD_HOOK_URL', 'http://127.0.0.1:1/build_hooks/5c23354f454e1350f8543e78');
    const unreachable = await (await load()).default();
    expect(unreachable.status).toBe(502);

    expect(logged).toEqual([
      'daily-rebuild: the build hook answered 404; no build started',
      'daily-rebuild: the build hook could not be reached (TypeError)',
    ]);
    expect(logged.join('\n')).not.toContain('5c23354f454e1350f8543e78');
  });

  test('anywhere but Netlify (npm start, tests) it asks for nothing, even with a hook set', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', '');
    vi.stubEnv('LAMBDA_TASK_ROOT', '');
    vi.stubEnv('BUILD_HOOK_URL', hookUrl);
    const answer = await (await load()).default();
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      success: true,
      skipped: 'not deployed on Netlify: nothing to rebuild',
    });
    expect(hits).toEqual([]);
    expect(logged).toEqual([]);
  });
});

describe('docs/running.md says what the function does', () => {
  const page = readFileSync(join(import.meta.dirname, '../../docs/running.md'), 'utf8');
  /** A section of the page, from its heading to the next one, its lines joined. */
  const section = (heading: string) => {
    const start = page.indexOf(`### ${heading}\n`);
    expect(start, heading).toBeGreaterThanOrEqual(0);
    const end = page.indexOf('\n#', start + heading.length + 5);
    return page.slice(start, end < 0 ? undefined : end).replace(/\s*\n\s*/g, ' ');
  };
  /** The lines a section says are logged: the quoted text after "logs" or "says". */
  const quotedLines = (text: string) =>
    [...text.matchAll(/\b(?:logs|says|prints)\b[^`.]{0,30}`([^`]+)`/g)].map(([, line]) => line);

  test('on Netlify: each line it quotes is logged as quoted', async () => {
    const quoted = quotedLines(section('The daily rebuild on Netlify'));
    expect(quoted.length).toBeGreaterThanOrEqual(2);
    deployed();
    vi.stubEnv('BUILD_HOOK_URL', hookUrl);
    await (await load()).default();
    vi.stubEnv('BUILD_HOOK_URL', '');
    vi.resetModules();
    await (await load()).default();
    for (const line of quoted) {
      expect(
        logged.some((said) => said.includes(line)),
        `"${line}" is not what it logs: ${logged.join(' | ')}`,
      ).toBe(true);
    }
  });

  test('self-hosted: npm start runs it at its minute, and it logs no line the page quotes', async () => {
    const text = section('The daily rebuild, self-hosted');
    const { config, default: run } = await load();
    // npm start runs every daily schedule at its minute (scripts/server/index.ts).
    expect(dailyTime(config.schedule!)).toBeDefined();
    expect(text).toMatch(/`npm start` runs `daily-rebuild` at its minute/);
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', '');
    vi.stubEnv('LAMBDA_TASK_ROOT', '');
    await run();
    for (const line of quotedLines(text)) {
      expect(logged, `the page quotes "${line}", which npm start never logs`).toContain(line);
    }
  });
});
