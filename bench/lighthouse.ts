/**
 * One Lighthouse run in a fresh headless Chromium: Lighthouse's default (mobile) config with its
 * simulated throttling, reduced to the figures the benchmark reports.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_FLAGS } from '../scripts/chromium.ts';

export const CHROME_FLAGS = ['--headless', ...CHROMIUM_FLAGS];

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface RunResult {
  scores: Record<Category, number>;
  /** The server's time to the page's first byte, as Lighthouse observed it (unthrottled). */
  firstByte: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  speedIndex: number;
  transferBytes: number;
  /** The page's own answer on the wire, headers included. */
  documentBytes: number;
  jsBytes: number;
  requests: number;
  /** The LCP element as Lighthouse describes it (a selector or a snippet). */
  lcpElement?: string;
  /** Audits that lost points in a scored category: `category/audit-id: title`. */
  failed: string[];
  scripts: string[];
  consoleErrors: string[];
}

interface NetworkItem {
  url: string;
  transferSize?: number;
  resourceType?: string;
}

interface AuditRef {
  id: string;
  weight: number;
}

/**
 * One Lighthouse run. Lighthouse sometimes loses the trace of a load on a busy machine
 * (NO_NAVSTART, NO_FCP): such a run is a failed measurement, not a property of the page, so it is
 * repeated (twice at most) in a fresh browser instead of ending the benchmark.
 */
export async function runLighthouse(url: string, chromePath: string): Promise<RunResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runLighthouseOnce(url, chromePath);
    } catch (error) {
      if (!(error instanceof TraceLostError) || attempt === 3) throw error;
      console.log(`  ${url}: ${error.message}; measuring again`);
    }
  }
}

class TraceLostError extends Error {}

async function runLighthouseOnce(url: string, chromePath: string): Promise<RunResult> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'bench-chrome-'));
  const chrome = await chromeLauncher.launch({
    chromePath,
    chromeFlags: CHROME_FLAGS,
    userDataDir,
    logLevel: 'silent',
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
      // The 404 page is meant to answer 404; audit it instead of stopping.
      ignoreStatusCode: true,
    });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError) {
      const message = `${url}: ${lhr.runtimeError.message}`;
      throw /NO_NAVSTART|NO_FCP|NO_LCP|trace/i.test(lhr.runtimeError.code + message)
        ? new TraceLostError(message)
        : new Error(message);
    }
    const audit = (id: string) => lhr.audits[id];
    const numeric = (id: string) => {
      const value = audit(id)?.numericValue;
      if (typeof value !== 'number') throw new Error(`${url}: no value for ${id}`);
      return value;
    };
    const items = ((audit('network-requests')?.details as { items?: NetworkItem[] })?.items ??
      []) as NetworkItem[];
    const scripts = items.filter((item) => item.resourceType === 'Script');
    const failed: string[] = [];
    for (const category of CATEGORIES) {
      for (const ref of lhr.categories[category]?.auditRefs as AuditRef[]) {
        const result = audit(ref.id);
        if (ref.weight > 0 && result?.score !== null && (result?.score ?? 1) < 1) {
          failed.push(`${category}/${ref.id}: ${result.title}`);
        }
      }
    }
    // Lighthouse 13 names the LCP element in its LCP breakdown insight.
    const lcpNode = (
      (
        audit('lcp-breakdown-insight')?.details as {
          items?: { type?: string; selector?: string; nodeLabel?: string }[];
        }
      )?.items ?? []
    ).find((item) => item.type === 'node');
    const consoleErrors = (
      (audit('errors-in-console')?.details as { items?: { description?: string }[] })?.items ?? []
    ).map((item) => item.description ?? '');
    return {
      consoleErrors,
      scores: Object.fromEntries(
        CATEGORIES.map((c) => [c, Math.round((lhr.categories[c]?.score ?? 0) * 100)]),
      ) as Record<Category, number>,
      firstByte: numeric('server-response-time'),
      fcp: numeric('first-contentful-paint'),
      lcp: numeric('largest-contentful-paint'),
      tbt: numeric('total-blocking-time'),
      cls: numeric('cumulative-layout-shift'),
      speedIndex: numeric('speed-index'),
      transferBytes: items.reduce((sum, item) => sum + (item.transferSize ?? 0), 0),
      documentBytes: items.find((item) => item.resourceType === 'Document')?.transferSize ?? 0,
      jsBytes: scripts.reduce((sum, item) => sum + (item.transferSize ?? 0), 0),
      requests: items.length,
      lcpElement: lcpNode ? `${lcpNode.selector} (${lcpNode.nodeLabel})` : undefined,
      failed,
      scripts: scripts.map((item) => item.url),
    };
  } finally {
    chrome.kill();
    await rm(userDataDir, { recursive: true, force: true }).catch(() => {});
  }
}
