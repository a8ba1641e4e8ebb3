import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { PAGE, pageWithTables } from '../../scripts/settings-table.ts';

test('docs/settings.md lists the settings as their schemas say (node scripts/settings-table.ts writes it)', () => {
  const page = readFileSync(PAGE, 'utf8');
  expect(page).toBe(pageWithTables(page));
});
