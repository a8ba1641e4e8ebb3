/**
 * The waiver's versions as the build reads them from the repository's history of
 * content/waiver.md (src/shared/waiver-versions.ts versionsFromHistory): she writes only the
 * text, its version and whether it is material; each version's text's SHA-256 is found, not
 * copied.
 */
import { describe, expect, test } from 'vitest';
import { versionsFromHistory, type WaiverState } from '../../src/shared/waiver-versions';
import { committedStates, waiverHistory } from '../../src/integrations/waiver-history';
import { currentWaiverText } from '../../src/server/waiver/current-text';
import { PROJECT_ROOT } from '../fixtures/project-copy';

const hash = (letter: string) => letter.repeat(64);
const state = (version: string, text: string, material = true, changes?: string): WaiverState => ({
  version,
  material,
  sha256: hash(text),
  ...(changes ? { changes } : {}),
});

describe('the versions published, from each commit of content/waiver.md', () => {
  test('each version once, in order, with the first text committed under it and the last word on material and changes', () => {
    const { versions, problem } = versionsFromHistory([
      state('2026-11', 'a'),
      state('2026-11', 'a', true), // another line of the file changed
      state('2027-01', 'b', true),
      state('2027-01', 'b', false, 'A typo in section 3.'), // she thought again
      state('2027-02', 'c', true, 'Classes in the park.'),
    ]);
    expect(problem).toBeUndefined();
    expect(versions).toEqual([
      { version: '2026-11', sha256: hash('a'), material: true },
      { version: '2027-01', sha256: hash('b'), material: false, changes: 'A typo in section 3.' },
      { version: '2027-02', sha256: hash('c'), material: true, changes: 'Classes in the park.' },
    ]);
  });

  test('the first version is what everyone signs: material, whatever it says', () => {
    expect(versionsFromHistory([state('2026-11', 'a', false)]).versions[0]!.material).toBe(true);
  });

  test('a text changed under a version already published is refused, saying what to do', () => {
    const { versions, problem } = versionsFromHistory([
      state('2026-11', 'a'),
      state('2026-11', 'b'),
    ]);
    expect(problem).toBe(
      "the text below has changed since version '2026-11' was published, and a signed text never changes under its version: give it a new version, e.g. '2026-12', and say whether the change is material (material: true or false)",
    );
    expect(versions).toEqual([{ version: '2026-11', sha256: hash('a'), material: true }]);
  });

  test('a refused text left in the history is passed over once the text has a new version, or is put back', () => {
    const renamed = versionsFromHistory([
      state('2026-11', 'a'),
      state('2026-11', 'b'),
      state('2027-01', 'b'),
    ]);
    expect(renamed.problem).toBeUndefined();
    expect(renamed.versions.map((v) => [v.version, v.sha256])).toEqual([
      ['2026-11', hash('a')],
      ['2027-01', hash('b')],
    ]);
    const putBack = versionsFromHistory([
      state('2026-11', 'a'),
      state('2026-11', 'b'),
      state('2026-11', 'a'),
    ]);
    expect(putBack).toEqual({
      versions: [{ version: '2026-11', sha256: hash('a'), material: true }],
    });
  });

  test('a version used again for a later text is refused', () => {
    const { problem } = versionsFromHistory([
      state('2026-11', 'a'),
      state('2027-01', 'b'),
      state('2026-11', 'a'),
    ]);
    expect(problem).toBe(
      "version '2026-11' was used for an earlier text, before '2027-01': give this text a new version, e.g. '2027-02'",
    );
  });
});

test("the project's own history gives the version in force as the functions file it with each waiver", () => {
  expect(committedStates(PROJECT_ROOT).length).toBeGreaterThan(0);
  const { versions, problem } = waiverHistory(PROJECT_ROOT);
  expect(problem).toBeUndefined();
  const current = currentWaiverText();
  expect(versions.at(-1)).toMatchObject({ version: current.version, sha256: current.sha256 });
});
