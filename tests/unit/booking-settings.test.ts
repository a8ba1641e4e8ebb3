import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { readConsultationSettings } from '../../src/server/booking/consultation';

const CONTENT = resolve(import.meta.dirname, '../../content');
const copies: string[] = [];

async function contentCopy(change?: { file: string; edit: (text: string) => string }) {
  const dir = await mkdtemp(join(tmpdir(), 'booking-settings-'));
  copies.push(dir);
  await cp(join(CONTENT, 'site.yaml'), join(dir, 'site.yaml'));
  await cp(join(CONTENT, 'consultation.yaml'), join(dir, 'consultation.yaml'));
  if (change) {
    const path = join(dir, change.file);
    const before = await readFile(path, 'utf8');
    const after = change.edit(before);
    expect(after, `the test's edit must change ${change.file}`).not.toBe(before);
    await writeFile(path, after);
  }
  return dir;
}

afterAll(async () => {
  await Promise.all(copies.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the consultation settings the functions read at run time', () => {
  test('the shipped content gives the studio’s zone, its address as the place, and the windows', () => {
    const settings = readConsultationSettings(CONTENT);

    expect(settings.timeZone).toBe('America/Los_Angeles');
    expect(settings.place).toEqual({
      kind: 'studio',
      label: 'At the studio',
      address: '2140 SE Division St, Portland, OR 97202',
    });
    expect(settings.availability).toMatchObject({
      lengthMinutes: 15,
      noticeHours: 12,
      horizonDays: 21,
    });
    expect(settings.availability.windows.length).toBeGreaterThan(0);
  });

  test('a mistake in consultation.yaml is an error naming the file and the field', async () => {
    const dir = await contentCopy({
      file: 'consultation.yaml',
      edit: (text) => text.replace(/^noticeHours: .*$/m, 'noticeHours: twelve'),
    });

    expect(() => readConsultationSettings(dir)).toThrow(
      /consultation\.yaml is not valid:[\s\S]*noticeHours/,
    );
  });

  test('a studio zone that is not an IANA name is an error naming site.yaml and timeZone', async () => {
    const dir = await contentCopy({
      file: 'site.yaml',
      edit: (text) => text.replace(/^timeZone: .*$/m, 'timeZone: PST'),
    });

    expect(() => readConsultationSettings(dir)).toThrow(
      /site\.yaml is not valid:[\s\S]*IANA[\s\S]*timeZone/,
    );
  });

  test('consultations by video name the link as the place', async () => {
    const dir = await contentCopy({
      file: 'consultation.yaml',
      edit: (text) =>
        text.replace(
          /^where: studio$/m,
          'where: video\nvideoLink: https://meet.example.com/still-point',
        ),
    });

    expect(readConsultationSettings(dir).place).toEqual({
      kind: 'video',
      label: 'By video call',
      link: 'https://meet.example.com/still-point',
    });
  });

  test('a missing file is an error naming it', async () => {
    const dir = await contentCopy();
    await rm(join(dir, 'consultation.yaml'));

    expect(() => readConsultationSettings(dir)).toThrow(/consultation\.yaml could not be read/);
  });
});
