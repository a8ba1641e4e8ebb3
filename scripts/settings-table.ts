import { readFileSync, writeFileSync } from 'node:fs';
import {
  SETTING_NAMES,
  settingWordsOf,
  siteSettings,
  startSettings,
  type SettingName,
} from '../src/server/platform/settings.ts';

/**
 * docs/settings.md's tables of settings, written from the settings' schemas
 * (src/server/platform/settings/): `node scripts/settings-table.ts` rewrites them between the
 * marker comments, and tests/unit/settings-table.test.ts fails while the page differs.
 */

export const PAGE = 'docs/settings.md';
const BEGIN = '<!-- settings-table: written by `node scripts/settings-table.ts`, do not edit -->';
const END = '<!-- /settings-table -->';

/**
 * A Markdown table, its columns not padded (Prettier is told to leave it: padded, the long
 * descriptions' column doubled the page).
 */
function table(rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(rows[0]),
    `| ${rows[0].map(() => '---').join(' | ')} |`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

function settingsOf(names: string[]): string {
  return table([
    ['variable', 'default', 'what it does'],
    ...(names as SettingName[]).map((name) => {
      const words = settingWordsOf(name);
      return [`\`${name}\``, words.fallback, words.about];
    }),
  ]);
}

/** What goes between the markers. */
export function settingsTables(): string {
  const site = Object.keys(siteSettings.shape);
  const start = Object.keys(startSettings.shape);
  if (site.length + start.length !== SETTING_NAMES.length) throw new Error('a setting in both');
  return [
    BEGIN,
    '<!-- prettier-ignore-start -->',
    '',
    "The site's, read by the functions and the build:",
    '',
    settingsOf(site),
    '',
    "`npm start`'s own, and `npm run backup` and `restore`'s:",
    '',
    settingsOf(start),
    '',
    '<!-- prettier-ignore-end -->',
    END,
  ].join('\n');
}

/** The page with its tables as the schemas say. */
export function pageWithTables(page: string): string {
  const begin = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${PAGE} has no ${BEGIN} … ${END}`);
  return page.slice(0, begin) + settingsTables() + page.slice(end + END.length);
}

if (import.meta.main) {
  const page = readFileSync(PAGE, 'utf8');
  const written = pageWithTables(page);
  writeFileSync(PAGE, written);
  console.log(written === page ? `${PAGE}: unchanged` : `${PAGE}: tables of settings written`);
}
