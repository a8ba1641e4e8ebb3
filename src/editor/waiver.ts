/**
 * The waiver's version rule, checked before the waiver is saved: a signed text never changes
 * under its version (src/shared/waiver-versions.ts), in the build's words. The build checks it
 * against every version ever committed; here, against the version she opened.
 */
import { versionsFromHistory, waiverLinesOf, type WaiverState } from '../shared/waiver-versions';
import { FILE_TEXT, writeMarkdown } from './files';

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function stateOf(source: string): Promise<WaiverState | undefined> {
  const state = waiverLinesOf(source);
  if (!state) return undefined;
  const { text, ...lines } = state;
  return { ...lines, sha256: await sha256(text) };
}

/** What the build would say of the waiver saved as `data`, opened as `loaded`; none when right. */
export async function waiverVersionProblem(
  loaded: unknown,
  data: Record<string, unknown>,
): Promise<string | undefined> {
  if (typeof loaded !== 'string') return undefined;
  const before = await stateOf(loaded);
  const after = await stateOf(writeMarkdown({ ...data, [FILE_TEXT]: loaded }));
  if (!before || !after) return undefined;
  const { problem } = versionsFromHistory([before, after]);
  return problem && `version: ${problem}`;
}
