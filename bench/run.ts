/**
 * `npm run bench`: builds the site, serves `dist/` compressed as a CDN would (and the pages a
 * function answers, /consultation, through `npm start`), makes the bare twin of every page (its
 * own words as plain HTML: bench/twins.ts), runs Lighthouse (mobile, simulated throttling) on
 * every page and every twin, times the form functions, times `npm start` on a fresh clone (its
 * first start, a restart, a restart after a content edit: bench/startup.ts), prints medians and
 * the targets met or missed, and writes bench/results.json.
 *
 * Flags: --runs=N (Lighthouse runs per page, default 3), --requests=N (send-email, default
 * 150), --waiver-requests=N (submit-waiver, default 60: each renders a PDF),
 * --booking-requests=N (each of book-consultation, book-session and book-class, default 100:
 * each takes a slot or a place), --cold-runs=N (default 7), --db=embedded|postgres (the
 * functions' database, default embedded),
 * --pages=/,/about (a subset, or any built path), --skip-build, --no-lighthouse, --no-functions,
 * --no-pad, --no-next-page (Home, then Services or Contact on a throttled phone),
 * --startup-runs=N (default 3), --no-startup, --out=FILE.
 * Environment: CHROME_PATH (default /usr/bin/chromium), BENCH_PORT (first of six ports: the
 * static site, the twins, npm start and SMTP for the functions, npm start for the function
 * pages, npm start on a fresh clone; default 8950; PostgreSQL takes a free one).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchFunctions, startBenchServer, type FunctionsReport } from './functions.ts';
import { bareTwin } from './twins.ts';
import { CATEGORIES, runLighthouse, type Category, type RunResult } from './lighthouse.ts';
import { PAGES } from '../tests/fixtures/pages.ts';
import { measurePad, type PadRun } from './pad.ts';
import {
  measureNextPage,
  NEXT_PAGES,
  REST_MS,
  startNextPageSites,
  TRIGGERS,
  type NextPageRun,
} from './next-page.ts';
import { startStaticServer } from './static-server.ts';
import { benchStartup, type StartupReport } from './startup.ts';

const root = resolve(import.meta.dirname, '..');
const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    requests: { type: 'string', default: '150' },
    'waiver-requests': { type: 'string', default: '60' },
    'booking-requests': { type: 'string', default: '100' },
    'cold-runs': { type: 'string', default: '7' },
    db: { type: 'string', default: 'embedded' },
    pages: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'no-lighthouse': { type: 'boolean', default: false },
    'no-functions': { type: 'boolean', default: false },
    'no-pad': { type: 'boolean', default: false },
    'no-next-page': { type: 'boolean', default: false },
    'startup-runs': { type: 'string', default: '3' },
    'no-startup': { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/results.json' },
  },
});

const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const basePort = Number(process.env.BENCH_PORT ?? 8950);
const runs = Number(flags.runs);

const SCREENS = PAGES;
/** Pages a function answers (the CDN calls it): measured through `npm start`, as deployed. */
const FUNCTION_PAGES = new Set(['/consultation', '/book/private', '/book/in-home', '/classes']);
/** The most a page may transfer, in KiB, where it has a budget of its own. */
const TRANSFER_BUDGETS_KIB: Record<string, number> = { Home: 44, Contact: 20 };
/** A page's LCP against its own words as bare HTML. */
const LCP_RATIO = 1.03;
/**
 * What a new connection delivers in its first round trip: TCP's initial window of 10 segments
 * of 1,460 bytes (RFC 6928), as Lighthouse's simulation has it. A page answer (headers
 * included) larger than this waits a whole round trip more on a slow phone.
 */
const FIRST_ROUND_TRIP_BYTES = 10 * 1460;
const TWIN = ' (bare)';
const PAD_READY_MS = 300;
/** The next page, prerendered, paints this soon after the click on a throttled phone. */
const NEXT_PAGE_MS = 100;

interface PageSummary {
  name: string;
  url: string;
  runs: number;
  median: Omit<RunResult, 'failed' | 'scripts' | 'lcpElement' | 'consoleErrors'>;
  /** The median over the rounds of the page's LCP divided by its twin's in the same round. */
  lcpRatio?: number;
  /** The page's median LCP divided by its twin's. */
  lcpRatioOfMedians?: number;
  lcpElement?: string;
  failed: string[];
  scripts: string[];
  consoleErrors: string[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function summarize(name: string, url: string, results: RunResult[]): PageSummary {
  const pick = (f: (r: RunResult) => number) => median(results.map(f));
  return {
    name,
    url,
    runs: results.length,
    median: {
      scores: Object.fromEntries(CATEGORIES.map((c) => [c, pick((r) => r.scores[c])])) as Record<
        Category,
        number
      >,
      firstByte: pick((r) => r.firstByte),
      fcp: pick((r) => r.fcp),
      lcp: pick((r) => r.lcp),
      tbt: pick((r) => r.tbt),
      cls: pick((r) => r.cls),
      speedIndex: pick((r) => r.speedIndex),
      transferBytes: pick((r) => r.transferBytes),
      documentBytes: pick((r) => r.documentBytes),
      jsBytes: pick((r) => r.jsBytes),
      requests: pick((r) => r.requests),
    },
    lcpElement: results.map((r) => r.lcpElement).find(Boolean),
    failed: [...new Set(results.flatMap((r) => r.failed))],
    scripts: [...new Set(results.flatMap((r) => r.scripts))],
    consoleErrors: [...new Set(results.flatMap((r) => r.consoleErrors))],
  };
}

function chromiumVersion(): string {
  try {
    return execFileSync(chromePath, ['--version'], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return `unknown (${chromePath})`;
  }
}

function table(pages: PageSummary[]): string {
  const head = [
    'page',
    'perf',
    'a11y',
    'bp',
    'seo',
    'TTFB ms',
    'FCP ms',
    'LCP ms',
    'TBT ms',
    'CLS',
    'SI ms',
    'KiB',
    'doc B',
    'JS KiB',
    'req',
    'LCP/bare',
  ];
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  const rows = pages.map((p) => [
    p.name,
    ...CATEGORIES.map((c) => String(p.median.scores[c])),
    p.median.firstByte.toFixed(1),
    p.median.fcp.toFixed(0),
    p.median.lcp.toFixed(0),
    p.median.tbt.toFixed(0),
    p.median.cls.toFixed(3),
    p.median.speedIndex.toFixed(0),
    kib(p.median.transferBytes),
    String(p.median.documentBytes),
    kib(p.median.jsBytes),
    String(p.median.requests),
    p.lcpRatio === undefined ? '-' : `${p.lcpRatio.toFixed(2)}x`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(head),
    `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

interface Target {
  page: string;
  target: string;
  met: boolean;
  detail: string;
}

function checkTargets(pages: PageSummary[], twins: Map<string, PageSummary>): Target[] {
  const targets: Target[] = [];
  for (const p of pages) {
    const m = p.median;
    const twin = twins.get(p.name);
    const low = CATEGORIES.filter((c) => m.scores[c] < 100);
    targets.push({
      page: p.name,
      target: 'all four scores 100',
      met: low.length === 0,
      detail: low.length
        ? `${low.map((c) => `${c} ${m.scores[c]}`).join(', ')}; lost on: ${p.failed.join('; ')}` +
          (p.name === '404'
            ? ' (by design: a 404 page answers 404, is noindex, and it logs the path with console.error)'
            : '')
        : 'yes',
    });
    if (p.lcpRatio !== undefined && twin) {
      targets.push({
        page: p.name,
        target: `LCP <= ${LCP_RATIO}x its own words as bare HTML`,
        met: p.lcpRatio <= LCP_RATIO,
        detail: `${p.lcpRatio.toFixed(3)}x, the median of ${p.runs} rounds' ratios (medians ${m.lcp.toFixed(0)} ms against ${twin.median.lcp.toFixed(0)} ms: ${p.lcpRatioOfMedians?.toFixed(3)}x; element: ${p.lcpElement ?? '?'})`,
      });
    }
    targets.push({
      page: p.name,
      target: `the page's answer fits the first round trip (<= ${FIRST_ROUND_TRIP_BYTES} B)`,
      met: m.documentBytes > 0 && m.documentBytes <= FIRST_ROUND_TRIP_BYTES,
      detail: `${m.documentBytes} B, headers included`,
    });
    targets.push({ page: p.name, target: 'CLS 0', met: m.cls === 0, detail: m.cls.toFixed(3) });
    targets.push({
      page: p.name,
      target: 'TBT 0',
      met: m.tbt === 0,
      detail: `${m.tbt.toFixed(0)} ms${twin ? ` (its bare twin: ${twin.median.tbt.toFixed(0)} ms)` : ''}`,
    });
    const budget = TRANSFER_BUDGETS_KIB[p.name];
    if (budget !== undefined) {
      targets.push({
        page: p.name,
        target: `transfer < ${budget} KiB`,
        met: m.transferBytes < budget * 1024,
        detail: `${(m.transferBytes / 1024).toFixed(1)} KiB`,
      });
    }
    // Every page, the forms' included: their script loads when the visitor first touches them.
    targets.push({
      page: p.name,
      target: '0 bytes of JavaScript until the menu or a form is touched',
      met: p.scripts.length === 0 && m.jsBytes === 0,
      detail: p.scripts.length
        ? `${(m.jsBytes / 1024).toFixed(1)} KiB: ${p.scripts.map((s) => new URL(s).pathname).join(', ')}`
        : 'none loaded',
    });
  }
  return targets;
}

function functionsTable(report: FunctionsReport): string {
  const lines = [
    '| function | requests | ok | npm start p50 / p95 ms | in-process p50 / p95 ms | difference p50 / p95 ms | server share p50 / p95 ms | cold import ms |',
  ];
  lines.push('|:--|--:|--:|--:|--:|--:|--:|--:|');
  const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));
  for (const f of report.functions) {
    if (f.skipped) {
      lines.push(`| ${f.name} | skipped: ${f.skipped} | | | | | | |`);
      continue;
    }
    const l = f.latency;
    const d = f.inProcess;
    const o = f.overhead;
    const share = f.serverShare;
    const c = f.coldImport;
    lines.push(
      `| ${f.name} | ${l?.requests ?? '-'} | ${l ? `${l.ok}/${l.sent}` : '-'} | ${ms(l?.p50Ms)} / ${ms(l?.p95Ms)} | ${ms(d?.p50Ms)} / ${ms(d?.p95Ms)} | ${ms(o?.p50Ms)} / ${ms(o?.p95Ms)} | ${ms(share?.p50Ms)} / ${ms(share?.p95Ms)} | ${c?.error ? `failed: ${c.error}` : (c?.medianMs.toFixed(0) ?? '-')} |`,
    );
  }
  for (const f of report.functions) {
    for (const t of f.targets ?? []) {
      lines.push(
        `${t.met ? '✔' : '✘'} ${f.name}: ${t.what} ${t.actualMs.toFixed(1)} ms (target <= ${t.limitMs} ms)`,
      );
    }
  }
  return lines.join('\n');
}

/** Home's paints beside the next page's, by the way the visitor went on. */
function nextPageTable(runs: NextPageRun[]) {
  const ms = (of: NextPageRun[], pick: (r: NextPageRun) => number) =>
    median(of.map(pick)).toFixed(0);
  const lines = [
    '| next page | set off by | Home FCP / LCP ms | next page FCP / LCP ms (from its activation when prerendered) | prerendered |',
    '|:--|:--|--:|--:|--:|',
  ];
  for (const path of NEXT_PAGES) {
    for (const trigger of TRIGGERS) {
      const of = runs.filter((r) => r.path === path && r.trigger === trigger);
      lines.push(
        `| ${path} | ${trigger} | ${ms(of, (r) => r.homeFcp)} / ${ms(of, (r) => r.homeLcp)} | ${ms(of, (r) => r.fcp)} / ${ms(of, (r) => r.lcp)} | ${of.filter((r) => r.prerendered).length}/${of.length} |`,
      );
    }
  }
  return lines.join('\n');
}

async function main() {
  const started = Date.now();
  const chromium = chromiumVersion();
  console.log(`Chromium: ${chromium}`);
  console.log(`Node: ${process.version}, Lighthouse runs per page: ${runs}`);

  if (!flags['skip-build']) {
    console.log('\n▶ astro build');
    const build = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
    });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }

  const results: {
    chromium: string;
    node: string;
    date: string;
    config: Record<string, unknown>;
    pages: PageSummary[];
    /** Each page's bare twin (its own words, no CSS, script or image): its LCP's yardstick. */
    twins?: PageSummary[];
    targets: Target[];
    pad?: { runs: PadRun[]; inkMs: number; hydratedMs: number; scriptBytesBeforeTouch: number };
    /** Home, then the next page, set off each way (bench/next-page.ts). */
    nextPage?: NextPageRun[];
    functions?: FunctionsReport;
    startup?: StartupReport;
    durationSeconds?: number;
  } = {
    chromium,
    node: process.version,
    date: new Date().toISOString(),
    config: {
      runs,
      lighthouse: 'default config (mobile, simulated throttling)',
      chromePath,
      compression: 'brotli q11 (gzip when not accepted)',
    },
    pages: [],
    targets: [],
  };

  if (!flags['no-lighthouse']) {
    const wanted = flags.pages?.split(',');
    // Any other path asked for (an event's page) is measured under its own path as its name.
    const others = (wanted ?? [])
      .filter((path) => !SCREENS.some((s) => s.path === path))
      .map((path) => ({ name: path, path }));
    const screens = [...SCREENS.filter((s) => !wanted || wanted.includes(s.path)), ...others];
    const scratch = await mkdtemp(join(tmpdir(), 'studio-bench-pages-'));
    const site = await startStaticServer({ root: join(root, 'dist'), port: basePort });
    const functionPages = screens.some((s) => FUNCTION_PAGES.has(s.path))
      ? await startBenchServer({
          root,
          port: basePort + 4,
          env: {
            LOCAL_DB_DIR: join(scratch, 'db'),
            MAIL_OUTBOX_DIR: join(scratch, 'mail'),
            OUTBOX_INTERVAL_MS: '0',
          },
        })
      : undefined;
    const urlOf = (path: string) =>
      (FUNCTION_PAGES.has(path) ? functionPages!.origin : site.origin) + path;
    // Each page's twin: its own words, as the page is served (a function's page as answered),
    // and with its status: a page that answers 404 has its twin answer 404 as well (the twin
    // server's 404.html, asked for at the same unknown path). Chromium draws a 404 answer later
    // than a 200 one (the same 404 page served as /404 with 200 measured 1.015x its twin against
    // 1.067x at an unknown path), which is the status's doing, not the page's.
    const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    await mkdir(join(scratch, 'twins'));
    const twinPaths = new Map<string, string>();
    let notFoundPath: string | undefined;
    for (const screen of screens) {
      const answer = await fetch(urlOf(screen.path));
      if (!answer.ok && answer.status !== 404) {
        throw new Error(`${screen.path} answered ${answer.status}: there is no page to measure`);
      }
      const notFound = answer.status === 404;
      // The twin server has one 404.html for every unknown path: room for one such page's twin.
      if (notFound && notFoundPath) {
        throw new Error(
          `${screen.path} and ${notFoundPath} both answer 404: measure one at a time`,
        );
      }
      if (notFound) notFoundPath = screen.path;
      const file = notFound ? '404.html' : `${slug(screen.name)}.html`;
      await writeFile(join(scratch, 'twins', file), bareTwin(await answer.text()));
      twinPaths.set(screen.name, notFound ? screen.path : `/${slug(screen.name)}`);
    }
    // Served with the site's own header rules, as every page is, so the ratio is the page's
    // markup, styles and scripts only: Cross-Origin-Opener-Policy, for one, makes Chromium open
    // the page in a new browsing context group, which a twin without it is spared.
    await copyFile(join(root, 'dist', '_headers'), join(scratch, 'twins', '_headers'));
    const twinSite = await startStaticServer({ root: join(scratch, 'twins'), port: basePort + 1 });
    try {
      const pairs = screens.map((s) => [
        { name: s.name, url: urlOf(s.path) },
        { name: `${s.name}${TWIN}`, url: `${twinSite.origin}${twinPaths.get(s.name)}` },
      ]);
      const targets = pairs.flat();
      const width = Math.max(...targets.map((t) => t.name.length));
      const collected = new Map<string, RunResult[]>(targets.map((t) => [t.name, []]));
      console.log(`\n▶ Lighthouse: ${targets.length} pages x ${runs} runs, one at a time`);
      // Round-robin, so a slow spell on a shared machine does not land on one page only; each
      // page beside its twin, the page first in odd rounds and the twin first in even ones, so
      // neither always comes first (the first run after a pause is often the slowest).
      for (let run = 1; run <= runs; run++) {
        for (const target of pairs.flatMap((pair) => (run % 2 ? pair : [...pair].reverse()))) {
          const t0 = Date.now();
          const result = await runLighthouse(target.url, chromePath);
          collected.get(target.name)!.push(result);
          console.log(
            `  run ${run}/${runs} ${target.name.padEnd(width)} perf ${result.scores.performance} LCP ${result.lcp.toFixed(0)} ms (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
          );
        }
      }
      const summaries = targets.map((t) => summarize(t.name, t.url, collected.get(t.name)!));
      const twins = new Map(
        summaries
          .filter((s) => s.name.endsWith(TWIN))
          .map((s) => [s.name.slice(0, -TWIN.length), s] as const),
      );
      results.pages = summaries.filter((s) => !s.name.endsWith(TWIN));
      for (const page of results.pages) {
        const twin = twins.get(page.name);
        if (!twin) continue;
        // The median of each round's ratio: a page and its twin are measured back to back, so a
        // slow spell of the machine falls on both and cancels out of their ratio, which it does
        // not out of the ratio of two medians taken across rounds (reported beside it).
        const pageRuns = collected.get(page.name)!;
        const twinRuns = collected.get(`${page.name}${TWIN}`)!;
        page.lcpRatio = median(pageRuns.map((r, i) => r.lcp / twinRuns[i].lcp));
        page.lcpRatioOfMedians = page.median.lcp / twin.median.lcp;
      }
      results.twins = [...twins.values()];
      results.targets = checkTargets(results.pages, twins);
    } finally {
      await site.close();
      await twinSite.close();
      await functionPages?.stop();
      await rm(scratch, { recursive: true, force: true });
    }
  }

  if (!flags['no-lighthouse'] && !flags['no-pad']) {
    console.log('\n▶ the signature pad on a throttled phone');
    const site = await startStaticServer({ root: join(root, 'dist'), port: basePort });
    try {
      const pad = await measurePad(site.origin, { runs: Math.max(runs, 3), chromePath });
      const middle = (values: number[]) => median(values);
      results.pad = {
        runs: pad,
        inkMs: middle(pad.map((r) => r.inkMs)),
        hydratedMs: middle(pad.map((r) => r.hydratedMs)),
        scriptBytesBeforeTouch: Math.max(...pad.map((r) => r.scriptBytesBeforeTouch)),
      };
      results.targets.push(
        {
          page: 'Waiver',
          target: `the pad inks within ${PAD_READY_MS} ms of the first touch (throttled phone)`,
          met: results.pad.inkMs <= PAD_READY_MS,
          detail: `${results.pad.inkMs.toFixed(0)} ms (the form's script had hydrated after ${results.pad.hydratedMs.toFixed(0)} ms)`,
        },
        {
          page: 'Waiver',
          target: 'no script before that touch',
          met: results.pad.scriptBytesBeforeTouch === 0,
          detail: `${results.pad.scriptBytesBeforeTouch} bytes`,
        },
      );
    } finally {
      await site.close();
    }
  }

  if (!flags['no-next-page']) {
    console.log('\n▶ the next page on a throttled phone (Home, then Services or Contact)');
    const scratch = await mkdtemp(join(tmpdir(), 'studio-bench-next-'));
    const sites = await startNextPageSites(join(root, 'dist'), scratch, basePort);
    try {
      results.nextPage = await measureNextPage(sites.origin, sites.noRulesOrigin, {
        runs: Math.max(runs, 5),
        chromePath,
      });
      for (const path of NEXT_PAGES) {
        const runsOf = results.nextPage.filter(
          (r) => r.path === path && r.trigger === 'link at hand',
        );
        const fcp = median(runsOf.map((r) => r.fcp));
        const all = runsOf.every((r) => r.prerendered);
        results.targets.push({
          page: path,
          target: `after Home, with the link at hand for ${REST_MS} ms, paints within ${NEXT_PAGE_MS} ms of its activation (throttled phone)`,
          met: all && fcp <= NEXT_PAGE_MS,
          detail: `FCP ${fcp.toFixed(0)} ms${all ? '' : ` (prerendered in ${runsOf.filter((r) => r.prerendered).length} of ${runsOf.length} runs)`}`,
        });
      }
    } finally {
      await sites.close();
      await rm(scratch, { recursive: true, force: true });
    }
  }

  if (!flags['no-functions']) {
    console.log('\n▶ functions');
    results.functions = await benchFunctions({
      root,
      port: basePort + 2,
      database: flags.db === 'postgres' ? 'postgres' : 'embedded',
      requests: {
        'send-email': Number(flags.requests),
        'submit-waiver': Number(flags['waiver-requests']),
        'book-consultation': Number(flags['booking-requests']),
        'book-session': Number(flags['booking-requests']),
        'book-class': Number(flags['booking-requests']),
      },
      coldRuns: Number(flags['cold-runs']),
    });
  }

  if (!flags['no-startup']) {
    console.log('\n▶ npm start on a fresh clone');
    results.startup = await benchStartup({
      root,
      port: basePort + 5,
      runs: Number(flags['startup-runs']),
    });
  }

  results.durationSeconds = Math.round((Date.now() - started) / 1000);
  const out = resolve(root, flags.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);

  if (results.twins) {
    console.log(
      `\n${chromium}; Lighthouse mobile preset, simulated throttling; medians of ${runs}`,
    );
    console.log(`\n${table([...results.pages, ...results.twins])}`);
    console.log('\nTargets:');
    for (const t of results.targets) {
      console.log(`  ${t.met ? '✔' : '✘'} ${t.page}: ${t.target} — ${t.detail}`);
    }
  }
  if (results.nextPage) {
    console.log(
      `\nThe next page (Home, then a link in it) on a throttled phone (4x CPU, 150 ms, 1.6 Mbit/s); medians of ${results.nextPage.length / NEXT_PAGES.length / TRIGGERS.length} runs:`,
    );
    console.log(nextPageTable(results.nextPage));
    // Without Lighthouse's table, its targets are said here.
    if (!results.twins) {
      for (const t of results.targets) {
        console.log(`  ${t.met ? '✔' : '✘'} ${t.page}: ${t.target} — ${t.detail}`);
      }
    }
  }
  if (results.functions) {
    console.log(
      `\nFunctions (npm start and in-process, one request at a time, ${results.functions.database} database; mails received: ${results.functions.mailsReceived}):`,
    );
    console.log(functionsTable(results.functions));
  }
  if (results.startup) {
    const { median: m, runs: startRuns } = results.startup;
    console.log(
      `\nStart-up (${results.startup.command}; medians of ${startRuns.length}):\n` +
        `  first start            ${m.firstStartS.toFixed(1)} s (goal: 30 s)\n` +
        `  restart, no change     ${m.restartS.toFixed(1)} s\n` +
        `  restart after an edit  ${m.editedRestartS.toFixed(1)} s (goal: 15 s)`,
    );
  }
  console.log(`\nWrote ${out} in ${results.durationSeconds} s`);
}

await main();
