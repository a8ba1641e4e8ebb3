/**
 * The daily rebuild. The Events page is static: an event that is over leaves its list (and the
 * calendar feed) only when the site is built again. On Netlify the scheduled function
 * `functions/daily-rebuild.ts` asks for that build once a day through a build hook, a URL
 * Netlify makes for the site (Site configuration > Build & deploy > Build hooks) whose POST
 * starts a production build. Self-hosted, a timer runs the build instead (docs/running.md, "The daily rebuild, self-hosted").
 */
import { isHostedFunction } from '../platform/hosting';
import { missingSetting, readSetting, SettingError } from '../platform/settings';

export type RebuildOutcome =
  | { kind: 'requested' }
  | { kind: 'local' }
  | { kind: 'missing-setting'; setting: string }
  | { kind: 'bad-setting'; setting: string }
  | { kind: 'refused'; status: number }
  | { kind: 'unreachable'; reason: string };

const HOOK_TIMEOUT_MS = 10_000;

export async function requestRebuild(): Promise<RebuildOutcome> {
  // Under npm start or in tests there is no Netlify build to ask for.
  if (!isHostedFunction()) return { kind: 'local' };
  // The hook is a secret (whoever has it can start builds): the settings never quote it.
  let hook: URL | undefined;
  try {
    hook = readSetting('BUILD_HOOK_URL');
  } catch (error) {
    if (!(error instanceof SettingError)) throw error;
    return { kind: 'bad-setting', setting: 'BUILD_HOOK_URL' };
  }
  if (!hook) {
    missingSetting('BUILD_HOOK_URL', 'past events stay on the Events page until the next deploy');
    return { kind: 'missing-setting', setting: 'BUILD_HOOK_URL' };
  }
  const url = new URL(hook);
  // The title Netlify shows for the deploy, instead of its default "triggered by hook".
  url.searchParams.set('trigger_title', 'Daily rebuild: past events leave the Events page');
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(HOOK_TIMEOUT_MS),
    });
    await answer.body?.cancel();
    return answer.ok ? { kind: 'requested' } : { kind: 'refused', status: answer.status };
  } catch (error) {
    return { kind: 'unreachable', reason: (error as Error)?.name ?? 'Error' };
  }
}
