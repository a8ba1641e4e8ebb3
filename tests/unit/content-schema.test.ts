/**
 * The instructor edits `content/` by hand, so a mistake there must stop the build and say
 * which file and which field is wrong. Each case breaks one file in its own copy of the
 * project and runs `astro sync`, which loads and validates every collection as the build does.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { splitWaiverSource, waiverVersionsSchema } from '../../src/shared/waiver-versions';
import { currentWaiverText } from '../../src/server/waiver/current-text';
import { copyProject, type ProjectCopy } from '../fixtures/project-copy';

const copies: ProjectCopy[] = [];

async function brokenCopy(file: string, change: (text: string) => string) {
  const copy = await copyProject('content-schema-');
  copies.push(copy);
  await copy.edit(file, change);
  return copy.astro('sync');
}

/** A copy with one published event file; returns what `astro sync` says about it. */
async function withEvent(name: string, frontmatter: string) {
  const copy = await copyProject('content-schema-');
  copies.push(copy);
  const file = `content/events/${name}.md`;
  await copy.write(file, `---\n${frontmatter.trim()}\n---\n\nA description.\n`);
  return { file, ...(await copy.astro('sync')) };
}

const EVENT = `
title: Evening Workshop
start: 2026-06-14 18:00
end: 2026-06-14 20:00
place: studio
price: 40
`;

afterAll(async () => {
  await Promise.all(copies.map((copy) => copy.dispose()));
});

describe.concurrent('a mistake in a content file', { timeout: 120_000 }, () => {
  test('a price that is not a number fails the build, naming the file and the price field', async () => {
    const file = 'content/sessions/private.md';
    const { code, output } = await brokenCopy(file, (text) =>
      text.replace(/^price: .*$/m, 'price: one hundred and twenty'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/\bprice\b.*number/);
  });

  test('a testimonial rated 6 out of 5 fails the build, naming the file and the rating field', async () => {
    const file = 'content/testimonials/sarah.md';
    const { code, output } = await brokenCopy(file, (text) =>
      text.replace(/^rating: .*$/m, 'rating: 6'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/\brating\b.*5/);
  });

  test('a service without a title fails the build, naming the file and the title field', async () => {
    const file = 'content/services/virtual.md';
    const { code, output } = await brokenCopy(file, (text) => text.replace(/^title: .*\n/m, ''));

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/\btitle\b/);
  });

  test('a studio time zone that is not an IANA name fails the build, naming the file and field', async () => {
    const { code, output } = await brokenCopy('content/site.yaml', (text) =>
      text.replace(/^timeZone: .*$/m, 'timeZone: Pacific/Nowhere'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain('site.yaml');
    expect(output).toMatch(/\btimeZone\b.*IANA/);
  });

  test('a consultation window that ends before it starts fails the build, naming the file and the window', async () => {
    const { code, output } = await brokenCopy('content/consultation.yaml', (text) =>
      text.replace("to: '11:30'", "to: '08:30'"),
    );

    expect(code).not.toBe(0);
    expect(output).toContain('consultation.yaml');
    expect(output).toMatch(/\bwindows\.0\.to\b.*08:30.*09:00/);
  });

  test('a keeping time that is not a number of days, weeks, months or years fails the build, naming the file and the kind', async () => {
    const { code, output } = await brokenCopy('content/retention.yaml', (text) =>
      text.replace('waivers: 7 years', 'waivers: seven years'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain('retention.yaml');
    expect(output).toMatch(/\bwaivers\b.*30 days/);
  });

  test('a consultation day that is not a weekday fails the build, naming the file and the day', async () => {
    const { code, output } = await brokenCopy('content/consultation.yaml', (text) =>
      text.replace('days: [Sa]', 'days: [Saturday]'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain('consultation.yaml');
    expect(output).toMatch(/\bwindows\.2\.days\.0\b.*Mo, Tu, We/);
  });
});

describe.concurrent('a mistake in an event file', { timeout: 120_000 }, () => {
  test('a well-formed event passes, so the cases below fail for their one mistake', async () => {
    const { code, output } = await withEvent('evening-workshop', EVENT);

    expect(output).not.toMatch(/InvalidContentEntryDataError/);
    expect(code).toBe(0);
  });

  test('an event that ends before it starts fails the build, naming the file and the end field', async () => {
    const { file, code, output } = await withEvent(
      'backwards',
      EVENT.replace('end: 2026-06-14 20:00', 'end: 2026-06-14 17:00'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/^\s*end: must be after start/m);
  });

  test('an event in an unknown time zone fails the build, naming the file and the timeZone field', async () => {
    const { file, code, output } = await withEvent(
      'nowhere',
      `${EVENT}timeZone: Europe/Atlantis\n`,
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/^\s*timeZone: .*IANA/m);
  });

  test('a start in the hour the clocks skip (2027-03-14 02:30 in Los Angeles) fails, naming start', async () => {
    const { file, code, output } = await withEvent(
      'spring-forward',
      EVENT.replace('start: 2026-06-14 18:00', 'start: 2027-03-14 02:30').replace(
        'end: 2026-06-14 20:00',
        'end: 2027-03-14 04:00',
      ),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(
      /^\s*start: 2027-03-14 02:30 does not exist in America\/Los_Angeles: the clocks go forward from 02:00 to 03:00/m,
    );
  });

  test('a start in the hour that happens twice (2026-11-01 01:30) fails, naming start and the offsets to choose', async () => {
    const { file, code, output } = await withEvent(
      'fall-back',
      EVENT.replace('start: 2026-06-14 18:00', 'start: 2026-11-01 01:30').replace(
        'end: 2026-06-14 20:00',
        'end: 2026-11-01 03:00',
      ),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/^\s*start: 2026-11-01 01:30 happens twice in America\/Los_Angeles/m);
    expect(output).toContain('2026-11-01 01:30-07:00');
    expect(output).toContain('2026-11-01 01:30-08:00');
  });

  test('a time YAML reads as a date (with seconds, unquoted) fails, naming the field and what to write', async () => {
    const { file, code, output } = await withEvent(
      'seconds',
      EVENT.replace('start: 2026-06-14 18:00', 'start: 2026-06-14 18:00:00'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/^\s*start: write the local date and time as 2026-06-14 09:00/m);
  });

  test('a place that is neither studio, online nor an address fails, naming the place field', async () => {
    const { file, code, output } = await withEvent(
      'somewhere',
      EVENT.replace('place: studio', 'place: the park'),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/^\s*place: use studio, online, or an address/m);
  });

  test('a price written with a dollar sign fails, naming the price field', async () => {
    const { file, code, output } = await withEvent(
      'dollars',
      EVENT.replace('price: 40', "price: '$40'"),
    );

    expect(code).not.toBe(0);
    expect(output).toContain(file);
    expect(output).toMatch(/^\s*price: use a number of US dollars/m);
  });
});

describe.concurrent('the waiver text and its versions', { timeout: 120_000 }, () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const changed = (text: string) =>
    text.replace(/\n## /, '\nA sentence added after the version was published.\n\n## ');
  const body = (source: string) => splitWaiverSource(source)!.text;

  /** A copy whose content/waiver.md is changed under version '2027-01'; the new text's SHA-256. */
  async function newVersionCopy() {
    const copy = await copyProject('content-schema-');
    copies.push(copy);
    let text = '';
    await copy.edit('content/waiver.md', (source) => {
      const next = changed(source).replace("version: '2026-11'", "version: '2027-01'");
      text = body(next);
      return next;
    });
    return { copy, newSha256: sha256(text) };
  }

  test('a changed text under an unchanged version fails the build, naming content/waiver.md and what to do', async () => {
    const { code, output } = await brokenCopy('content/waiver.md', changed);

    expect(code).not.toBe(0);
    expect(output).toContain("content/waiver.md: its text has changed since version '2026-11'");
    expect(output).toContain("set a new `version` in content/waiver.md's frontmatter");
    expect(output).toContain('content/waiver-versions.yaml');
  });

  test('the same change passes once it has a new version recorded with its SHA-256', async () => {
    const { copy, newSha256 } = await newVersionCopy();
    await copy.edit(
      'content/waiver-versions.yaml',
      (yaml) => `${yaml}  - version: '2027-01'\n    sha256: ${newSha256}\n    material: true\n`,
    );
    const { code, output } = await copy.astro('sync');

    expect(output).not.toContain('content/waiver.md');
    expect(code).toBe(0);
  });

  test('a new version not yet in the list fails, giving the SHA-256 to record', async () => {
    const { copy, newSha256 } = await newVersionCopy();
    const { code, output } = await copy.astro('sync');

    expect(code).not.toBe(0);
    expect(output).toContain("content/waiver.md has version '2027-01'");
    expect(output).toContain(newSha256);
  });
});

test('the recorded SHA-256 of the version in force is the one the functions file with each waiver', async () => {
  const versions = waiverVersionsSchema.parse(
    parseYaml(await readFile('content/waiver-versions.yaml', 'utf8')),
  );
  const current = currentWaiverText();
  expect(versions.versions.at(-1)).toMatchObject({
    version: current.version,
    sha256: current.sha256,
  });
});
