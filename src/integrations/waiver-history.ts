/**
 * Every version of the waiver text ever published, read from the repository's history of
 * content/waiver.md: the instructor changes the text, its `version` and `material` lines and
 * commits, and the build finds the rest (each version's text's SHA-256, in order). Netlify
 * builds from a full clone; a copy of the files without their history knows only the version in
 * force, which is then the first.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../server/waiver/current-text.ts';
import {
  versionsFromHistory,
  waiverLinesOf,
  type WaiverState,
  type WaiverVersion,
} from '../shared/waiver-versions.ts';

export const WAIVER_FILE = 'content/waiver.md';

/** A state of content/waiver.md, read leniently: an old one may lack `material` (then true). */
export function stateOf(source: string): WaiverState | undefined {
  const state = waiverLinesOf(source);
  if (!state) return undefined;
  const { text, ...lines } = state;
  return { ...lines, sha256: sha256(text) };
}

function git(root: string, ...args: string[]): string {
  return execFileSync('git', ['-C', root, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** content/waiver.md as committed, oldest first; none without a repository (or without git). */
export function committedStates(root: string): WaiverState[] {
  let commits: string[];
  try {
    commits = git(root, 'log', '--format=%H', '--reverse', '--', WAIVER_FILE)
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
  const states: WaiverState[] = [];
  for (const commit of commits) {
    let source: string;
    try {
      source = git(root, 'show', `${commit}:./${WAIVER_FILE}`);
    } catch {
      continue; // the commit deleted the file
    }
    const state = stateOf(source);
    if (state) states.push(state);
  }
  return states;
}

/**
 * The versions published, the file as it is now last, and what is wrong with it now, if
 * anything (in the instructor's words, for its `version` line).
 */
export function waiverHistory(root: string): { versions: WaiverVersion[]; problem?: string } {
  const current = stateOf(readFileSync(join(root, WAIVER_FILE), 'utf8'));
  if (!current) return { versions: [] };
  return versionsFromHistory([...committedStates(root), current]);
}
