/**
 * The instructor edits `content/` by hand, so a mistake there must stop the build and say
 * which file and which field is wrong. Each case breaks one file in its own copy of the
 * project and runs `astro sync`, which loads and validates every collection as the build does.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const SKIPPED = new Set(['node_modules', 'dist', '.astro', '.netlify', '.git']);
const copies: string[] = [];

async function copyProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'content-schema-'));
  copies.push(dir);
  await cp(root, dir, {
    recursive: true,
    filter: (source) => source === root || !SKIPPED.has(basename(source)),
  });
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

async function edit(dir: string, file: string, change: (text: string) => string) {
  const path = join(dir, file);
  const before = await readFile(path, 'utf8');
  const after = change(before);
  expect(after, `the test's edit must change ${file}`).not.toBe(before);
  await writeFile(path, after);
}

/** Runs `astro sync` in a broken copy; returns its exit code and everything it printed. */
async function validate(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['node_modules/astro/bin/astro.mjs', 'sync'],
      {
        cwd: dir,
        env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

afterAll(async () => {
  await Promise.all(copies.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe.concurrent('a mistake in a content file', { timeout: 60_000 }, () => {
  test('a price that is not a number fails the build, naming the file and the price field', async () => {
    const dir = await copyProject();
    const file = 'content/sessions/private.md';
    await edit(dir, file, (text) => text.replace(/^price: .*$/m, 'price: one hundred and twenty'));

    const { code, output } = await validate(dir);

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/\bprice\b.*number/);
  });

  test('a testimonial rated 6 out of 5 fails the build, naming the file and the rating field', async () => {
    const dir = await copyProject();
    const file = 'content/testimonials/sarah.md';
    await edit(dir, file, (text) => text.replace(/^rating: .*$/m, 'rating: 6'));

    const { code, output } = await validate(dir);

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/\brating\b.*5/);
  });

  test('a service without a title fails the build, naming the file and the title field', async () => {
    const dir = await copyProject();
    const file = 'content/services/virtual.md';
    await edit(dir, file, (text) => text.replace(/^title: .*\n/m, ''));

    const { code, output } = await validate(dir);

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/\btitle\b/);
  });

  test('a studio time zone that is not an IANA name fails the build, naming the file and field', async () => {
    const dir = await copyProject();
    const file = 'content/site.yaml';
    await edit(dir, file, (text) => text.replace(/^timeZone: .*$/m, 'timeZone: Pacific/Nowhere'));

    const { code, output } = await validate(dir);

    expect(code).not.toBe(0);
    expect(output).toContain('site.yaml');
    expect(output).toMatch(/\btimeZone\b.*IANA/);
  });

  test('a consultation window that ends before it starts fails the build, naming the file and the window', async () => {
    const dir = await copyProject();
    const file = 'content/consultation.yaml';
    await edit(dir, file, (text) => text.replace("to: '11:30'", "to: '08:30'"));

    const { code, output } = await validate(dir);

    expect(code).not.toBe(0);
    expect(output).toContain('consultation.yaml');
    expect(output).toMatch(/\bwindows\.0\.to\b.*08:30.*09:00/);
  });

  test('a consultation day that is not a weekday fails the build, naming the file and the day', async () => {
    const dir = await copyProject();
    const file = 'content/consultation.yaml';
    await edit(dir, file, (text) => text.replace('days: [Sa]', 'days: [Saturday]'));

    const { code, output } = await validate(dir);

    expect(code).not.toBe(0);
    expect(output).toContain('consultation.yaml');
    expect(output).toMatch(/\bwindows\.2\.days\.0\b.*Mo, Tu, We/);
  });
});
