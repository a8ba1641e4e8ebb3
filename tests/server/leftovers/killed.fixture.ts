/** A server test whose runner is killed (SIGKILL) while its server runs. */
import { writeFile } from 'node:fs/promises';
import { test } from 'vitest';
import { startStudio } from '../harness.ts';

test('holds its server until the runner is killed', async () => {
  const studio = await startStudio({ cwd: process.env.LEFTOVER_ROOT! });
  await writeFile(process.env.LEFTOVER_PID_FILE!, String(studio.pid));
  await new Promise(() => undefined);
});
