/**
 * Two server tests that fail with a server of theirs running: one throws before stopping it (it
 * has no afterAll either), one's start outruns its hook.
 */
import { writeFile } from 'node:fs/promises';
import { beforeAll, describe, test } from 'vitest';
import { startStudio } from '../harness.ts';

const root = process.env.LEFTOVER_ROOT!;

test('fails while its server runs', async () => {
  const studio = await startStudio({ cwd: root });
  await writeFile(process.env.LEFTOVER_PID_FILE!, String(studio.pid));
  throw new Error('failing on purpose, the server still running');
});

describe('a start that outruns its hook', () => {
  beforeAll(async () => {
    await startStudio({ cwd: root });
  }, 100);
  test('is never reached', () => undefined);
});
