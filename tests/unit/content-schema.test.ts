/**
 * The instructor edits `content/` by hand, so a mistake there must stop the build and say, in
 * her words and nothing else, which file, line and field is wrong and what to write instead.
 * Each case breaks one file in its own copy of the project and runs `astro sync`, which checks
 * content/ and loads every collection as the build does.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { splitWaiverSource } from '../../src/shared/waiver-versions';
import { copyProject, type ProjectCopy } from '../fixtures/project-copy';

const run = promisify(execFile);
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

/**
 * What the build printed, as lines; it must be exactly `lines`: her words, and nothing else (no
 * Astro error name, hint, documentation link or stack trace).
 */
function expectOnly(run: { code: number; output: string }, ...lines: string[]) {
  expect(run.code).not.toBe(0);
  expect(run.output.trim().split('\n')).toEqual(lines);
}

describe.concurrent(
  'a mistake in a content file is told in her words, and nothing else',
  { timeout: 120_000 },
  () => {
    test('sessions: a price that is not a number names the file, the line, price, and an example', async () => {
      const run = await brokenCopy('content/sessions/private.md', (text) =>
        text.replace(/^price: .*$/m, 'price: one hundred and twenty'),
      );
      expectOnly(
        run,
        'content/sessions/private.md, line 3: price: use a number of US dollars, e.g. 120',
      );
    });

    test('the build stops the same way, with the same words and nothing else', async () => {
      const copy = await copyProject('content-schema-');
      copies.push(copy);
      await copy.edit('content/sessions/private.md', (text) =>
        text.replace(/^price: .*$/m, 'price: one hundred and twenty'),
      );
      expectOnly(
        await copy.astro('build'),
        'content/sessions/private.md, line 3: price: use a number of US dollars, e.g. 120',
      );
      expect(existsSync(copy.path('dist'))).toBe(false);
    });

    test('sessions: a line a session does not have is named, with the lines it has', async () => {
      const run = await brokenCopy('content/sessions/in-home.md', (text) =>
        text.replace(/^price: /m, 'pirce: '),
      );
      expectOnly(
        run,
        'content/sessions/in-home.md: price: missing: use a number of US dollars, e.g. 120',
        'content/sessions/in-home.md, line 3: pirce: is not a line of a session: use title, price, unit, note, order, lengthMinutes, where, areas, travelMinutes',
      );
    });

    test('services: a missing title names the file, title, and an example', async () => {
      const run = await brokenCopy('content/services/virtual.md', (text) =>
        text.replace(/^title: .*\n/m, ''),
      );
      expectOnly(
        run,
        "content/services/virtual.md: title: missing: write the card's title, e.g. Private Virtual Sessions",
      );
    });

    test("services: a price is a number of dollars or inquire, like a session's or an event's", async () => {
      const run = await brokenCopy('content/services/corporate.md', (text) =>
        text.replace(/^price: .*$/m, 'price: Call me'),
      );
      expectOnly(
        run,
        'content/services/corporate.md, line 4: price: use a number of US dollars, e.g. 95, or inquire',
      );
    });

    test('programs: a picture that is not beside the file names image, and an example', async () => {
      const run = await brokenCopy('content/programs/prenatal.md', (text) =>
        text.replace(/^image: .*$/m, 'image: ./prenatal.png'),
      );
      expectOnly(
        run,
        "content/programs/prenatal.md, line 6: image: ./prenatal.png is not there: write the picture's file name beside this file, e.g. ./prenatal.svg",
      );
    });

    test('testimonials: a rating of 6 names the file, rating, and the range', async () => {
      const run = await brokenCopy('content/testimonials/sarah.md', (text) =>
        text.replace(/^rating: .*$/m, 'rating: 6'),
      );
      expectOnly(
        run,
        'content/testimonials/sarah.md, line 3: rating: use a whole number of stars from 1 to 5, e.g. 5',
      );
    });

    test('site.yaml: a time zone that is not an IANA name names timeZone, and an example', async () => {
      const run = await brokenCopy('content/site.yaml', (text) =>
        text.replace(/^timeZone: .*$/m, 'timeZone: Pacific/Nowhere'),
      );
      expectOnly(
        run,
        'content/site.yaml, line 12: timeZone: use an IANA time zone name, e.g. America/Los_Angeles',
      );
    });

    test("site.yaml: the hours' day that is no day and a closing time that is no time, each on its line", async () => {
      const run = await brokenCopy('content/site.yaml', (text) =>
        text
          .replace('days: [Sa, Su]', 'days: [Sa, Sundy]')
          .replace("closes: '18:00'", 'closes: six'),
      );
      expectOnly(
        run,
        'content/site.yaml, line 28: days: Sundy is not a day: use Mo, Tu, We, Th, Fr, Sa or Su',
        "content/site.yaml, line 30: closes: use a 24-hour time between 00:00 and 23:59, e.g. '20:00'",
      );
    });

    test('site.yaml: a wrong line in the address is named with the lines an address has', async () => {
      const run = await brokenCopy('content/site.yaml', (text) =>
        text.replace("postalCode: '97202'", "zip: '97202'"),
      );
      expectOnly(
        run,
        "content/site.yaml, line 16: postalCode: missing: write the ZIP code in quotes, e.g. '97202'",
        'content/site.yaml, line 19: zip: is not a line of an address: use street, locality, region, postalCode, country',
      );
    });

    test('consultation.yaml: a window that ends before it starts names to, on its line', async () => {
      const run = await brokenCopy('content/consultation.yaml', (text) =>
        text.replace("to: '11:30'", "to: '08:30'"),
      );
      expectOnly(
        run,
        'content/consultation.yaml, line 20: to: ends at 08:30, which is not after its start, 09:00',
      );
    });

    test('consultation.yaml: a day that is no day names days, and the days to use', async () => {
      const run = await brokenCopy('content/consultation.yaml', (text) =>
        text.replace('days: [Sa]', 'days: [Sat, Xy]'),
      );
      expectOnly(
        run,
        'content/consultation.yaml, line 24: days: Xy is not a day: use Mo, Tu, We, Th, Fr, Sa or Su',
      );
    });

    test('retention.yaml: a keeping time that is not a number of days, weeks, months or years names the kind', async () => {
      const run = await brokenCopy('content/retention.yaml', (text) =>
        text.replace('waivers: 7 years', 'waivers: seven years'),
      );
      expectOnly(
        run,
        'content/retention.yaml, line 8: waivers: write a whole number and days, weeks, months or years, e.g. "30 days" or "2 years"',
      );
    });

    test('retention.yaml: a kind of record the site does not keep names the line, and the kinds there are', async () => {
      const run = await brokenCopy('content/retention.yaml', (text) =>
        text.replace('waivers: 7 years', 'waviers: 7 years'),
      );
      expect(run.code).not.toBe(0);
      expect(run.output.trim().split('\n')).toHaveLength(1);
      expect(run.output).toMatch(
        /^content\/retention\.yaml, line 8: waviers: is not a kind of record: use spam, mailRecords, messages, consultations, .*waivers/,
      );
    });

    test('pages: an icon that does not exist names icon and the icons there are; a block the page needs is named', async () => {
      const copy = await copyProject('content-schema-');
      copies.push(copy);
      await copy.edit('content/about.md', (text) => text.replace('icon: leaf', 'icon: flower'));
      await copy.edit('content/home.md', (text) => text.replace(/^heroImageAlt: .*\n/m, ''));
      expectOnly(
        await copy.astro('sync'),
        'content/about.md, line 15: icon: use one of leaf, user, target, heart, award, clock, mail, check, shield, lock, refresh, calendar, chat, arrow, instagram, facebook',
        'content/home.md: heroImageAlt: missing: the page shows it: describe the picture for someone who cannot see it, e.g. Illustration of ...',
      );
    });

    test('a line that does not read as YAML names its line, and what to check', async () => {
      const run = await brokenCopy('content/testimonials/james.md', (text) =>
        text.replace(/^name: (.*)$/m, 'name: $1: a client'),
      );
      expectOnly(
        run,
        'content/testimonials/james.md, line 2: this line does not read: check its indentation and the space after its colon, and put words holding ": " or " #" in quotes',
      );
    });
  },
);

describe.concurrent('an obvious slip is taken as meant', { timeout: 120_000 }, () => {
  test('a price of $125 or 125.00, and days written Thu, Thursday or thu, build', async () => {
    const copy = await copyProject('content-schema-');
    copies.push(copy);
    await copy.edit('content/sessions/private.md', (text) =>
      text.replace(/^price: .*$/m, "price: '$125'"),
    );
    await copy.edit('content/sessions/in-home.md', (text) =>
      text.replace(/^price: .*$/m, 'price: 150.00'),
    );
    await copy.edit('content/site.yaml', (text) =>
      text.replace('days: [Mo, Tu, We, Th, Fr]', 'days: [mon, Tue, wed, Thursday, FRI]'),
    );
    await copy.edit('content/consultation.yaml', (text) =>
      text.replace('days: [Sa]', 'days: [Saturday]').replace("from: '15:00'", 'from: 3:00 PM'),
    );
    const { code, output } = await copy.astro('sync');

    expect(output).not.toMatch(/^content\//m);
    expect(code).toBe(0);
  });
});

test(
  'a service priced in dollars shows its price; the others still read Inquire',
  { timeout: 240_000 },
  async () => {
    const copy = await copyProject('content-schema-');
    copies.push(copy);
    await copy.edit('content/services/virtual.md', (text) =>
      text.replace(/^price: .*$/m, 'price: 95'),
    );
    const { code, output } = await copy.astro('build');
    expect(code, output).toBe(0);
    const html = await readFile(copy.path('dist/services.html'), 'utf8');
    const prices = [...html.matchAll(/<dt[^>]*>Price<\/dt>\s*<dd[^>]*>\s*([^<]*?)\s*<\/dd>/g)].map(
      ([, price]) => price,
    );
    expect(prices.sort()).toEqual(['$95', 'Inquire', 'Inquire', 'Inquire']);
  },
);

describe.concurrent('a mistake in an event file', { timeout: 120_000 }, () => {
  test('a well-formed event passes, so the cases below fail for their one mistake', async () => {
    const { code, output } = await withEvent('evening-workshop', EVENT);

    expect(output).not.toMatch(/^content\//m);
    expect(code).toBe(0);
  });

  test('an event that ends before it starts fails the build, naming the file and the end field', async () => {
    const run = await withEvent(
      'backwards',
      EVENT.replace('end: 2026-06-14 20:00', 'end: 2026-06-14 17:00'),
    );
    expectOnly(
      run,
      `${run.file}, line 4: end: must be after start: the event starts 2026-06-14 18:00 and ends 2026-06-14 17:00`,
    );
  });

  test('an event in an unknown time zone fails the build, naming the file and the timeZone field', async () => {
    const run = await withEvent('nowhere', `${EVENT}timeZone: Europe/Atlantis\n`);
    expectOnly(
      run,
      `${run.file}, line 7: timeZone: use an IANA time zone name, e.g. America/Los_Angeles`,
    );
  });

  test('a start in the hour the clocks skip (2027-03-14 02:30 in Los Angeles) fails, naming start', async () => {
    const run = await withEvent(
      'spring-forward',
      EVENT.replace('start: 2026-06-14 18:00', 'start: 2027-03-14 02:30').replace(
        'end: 2026-06-14 20:00',
        'end: 2027-03-14 04:00',
      ),
    );
    expect(run.code).not.toBe(0);
    expect(run.output.trim().split('\n')).toHaveLength(1);
    expect(run.output).toMatch(
      /^content\/events\/spring-forward\.md, line 3: start: 2027-03-14 02:30 does not exist in America\/Los_Angeles: the clocks go forward from 02:00 to 03:00/,
    );
  });

  test('a start in the hour that happens twice (2026-11-01 01:30) fails, naming start and the offsets to choose', async () => {
    const run = await withEvent(
      'fall-back',
      EVENT.replace('start: 2026-06-14 18:00', 'start: 2026-11-01 01:30').replace(
        'end: 2026-06-14 20:00',
        'end: 2026-11-01 03:00',
      ),
    );
    expect(run.code).not.toBe(0);
    expect(run.output.trim().split('\n')).toHaveLength(1);
    expect(run.output).toMatch(
      /^content\/events\/fall-back\.md, line 3: start: 2026-11-01 01:30 happens twice in America\/Los_Angeles/,
    );
    expect(run.output).toContain('2026-11-01 01:30-07:00');
    expect(run.output).toContain('2026-11-01 01:30-08:00');
  });

  test('a time YAML reads as a date (with seconds, unquoted) fails, naming the field and what to write', async () => {
    const run = await withEvent(
      'seconds',
      EVENT.replace('start: 2026-06-14 18:00', 'start: 2026-06-14 18:00:00'),
    );
    expectOnly(
      run,
      `${run.file}, line 3: start: write the local date and time without seconds (or in quotes), e.g. 2026-06-14 09:00`,
    );
  });

  test('a place that is neither studio, online nor an address fails, naming the place field', async () => {
    const run = await withEvent('somewhere', EVENT.replace('place: studio', 'place: the park'));
    expectOnly(
      run,
      `${run.file}, line 5: place: use studio, online, or an address with name, street, locality, region and postalCode`,
    );
  });

  test('a price in words fails, naming the price field and an example', async () => {
    const run = await withEvent('words', EVENT.replace('price: 40', 'price: forty'));
    expectOnly(run, `${run.file}, line 6: price: use a number of US dollars, e.g. 25, or free`);
  });

  test('a price written with a dollar sign is taken as meant', async () => {
    const { code, output } = await withEvent('dollars', EVENT.replace('price: 40', "price: '$40'"));
    expect(output).not.toMatch(/^content\//m);
    expect(code).toBe(0);
  });
});

describe.concurrent(
  'publishing a new version of the waiver, as she would in the browser',
  { timeout: 240_000 },
  () => {
    const changed = (text: string) =>
      text.replace(/\n## /, '\nA sentence added after the version was published.\n\n## ');
    const sha256 = (source: string) =>
      createHash('sha256').update(splitWaiverSource(source)!.text).digest('hex');

    /** A copy of the project in a repository of its own, its files committed as they are. */
    async function committedCopy() {
      const copy = await copyProject('content-schema-');
      copies.push(copy);
      const git = (...args: string[]) =>
        run('git', ['-c', 'user.name=Maya', '-c', 'user.email=maya@example.test', ...args], {
          cwd: copy.dir,
        });
      await git('init', '-q');
      await git('add', '-A');
      await git('commit', '-q', '-m', 'The site as published');
      return { copy, commit: (message: string) => git('commit', '-q', '-am', message) };
    }

    test('a text changed under the version already published stops the build, saying what to write', async () => {
      const { copy, commit } = await committedCopy();
      await copy.edit('content/waiver.md', changed);
      await commit('A sentence more');

      expectOnly(
        await copy.astro('sync'),
        "content/waiver.md, line 9: version: the text below has changed since version '2026-11' was published, and a signed text never changes under its version: give it a new version, e.g. '2026-12', and say whether the change is material (material: true or false)",
      );
    });

    test("the text, its version line and material: the build finds each version's SHA-256 and ships the list", async () => {
      const { copy, commit } = await committedCopy();
      const published = await copy.read('content/waiver.md');
      await copy.edit('content/waiver.md', (source) =>
        changed(source)
          .replace("version: '2026-11'", "version: '2026-12'")
          .replace(/^material: true$/m, 'material: true\nchanges: A sentence about the park.'),
      );
      await commit('Waiver 2026-12');

      const { code, output } = await copy.astro('build');
      expect(code, output).toBe(0);
      const shipped = JSON.parse(await copy.read('dist/waiver-versions.json')) as unknown;
      expect(shipped).toEqual({
        versions: [
          { version: '2026-11', sha256: sha256(published), material: true },
          {
            version: '2026-12',
            sha256: sha256(await copy.read('content/waiver.md')),
            material: true,
            changes: 'A sentence about the park.',
          },
        ],
      });
    });

    test('a version without its material line is told what to write', async () => {
      const { copy, commit } = await committedCopy();
      await copy.edit('content/waiver.md', (source) =>
        changed(source)
          .replace("version: '2026-11'", "version: '2026-12'")
          .replace(/^material: true\n/m, ''),
      );
      await commit('Waiver 2026-12');

      expectOnly(
        await copy.astro('sync'),
        'content/waiver.md: material: missing: write true if everyone who signed an earlier version must sign again, false for a change that alters nothing they agree to (a typo), e.g. material: true',
      );
    });
  },
);
