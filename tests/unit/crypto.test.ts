import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  LOCAL_KEY_FILE,
  clientFingerprint,
  decryptField,
  encryptField,
  encryptionKey,
  isEncrypted,
} from '../../src/server/platform/crypto';
import { MissingSettingError, SettingError, keyBytes } from '../../src/server/platform/settings';

const KEY = randomBytes(32).toString('base64');

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('health data encryption (AES-256-GCM)', () => {
  test('round-trips any text, and the sealed form holds none of it', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        const sealed = encryptField(text, 'medicalConditions');
        expect(isEncrypted(sealed)).toBe(true);
        if (text.length >= 4) expect(sealed).not.toContain(text);
        expect(decryptField(sealed, 'medicalConditions')).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  test('seals the same text differently each time (a fresh IV)', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    expect(encryptField('asthma', 'medications')).not.toBe(encryptField('asthma', 'medications'));
  });

  test('refuses a value that was tampered with', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const parts = encryptField('knee surgery in 2021', 'medicalConditions').split(':');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => decryptField(parts.join(':'), 'medicalConditions')).toThrow();
  });

  test('refuses a value moved to another field', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const sealed = encryptField('insulin', 'medications');
    expect(() => decryptField(sealed, 'medicalConditions')).toThrow();
  });

  test('says so when a value was sealed with another key', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const sealed = encryptField('insulin', 'medications');
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', randomBytes(32).toString('hex'));
    expect(() => decryptField(sealed, 'medications')).toThrow(/another key/);
  });

  test('reads a key written as base64 or hex, and rejects one of the wrong length', () => {
    const raw = randomBytes(32);
    expect(keyBytes(raw.toString('base64'))).toEqual(raw);
    expect(keyBytes(raw.toString('hex'))).toEqual(raw);
    expect(keyBytes('too-short')).toBeUndefined();
    expect(keyBytes(randomBytes(16).toString('base64'))).toBeUndefined();
  });

  test('a WAIVER_ENCRYPTION_KEY of the wrong length is an error naming it, never a local key', () => {
    const short = randomBytes(16).toString('base64');
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', short);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => encryptionKey()).toThrow(SettingError);
    expect(() => encryptionKey()).toThrow(
      'WAIVER_ENCRYPTION_KEY must be 32 bytes, written as base64 or hex',
    );
    expect(() => encryptionKey()).not.toThrow(short);
  });

  test('without WAIVER_ENCRYPTION_KEY, a local run makes one key file and keeps using it', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', '');
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const first = encryptionKey();
    const file = resolve(process.cwd(), LOCAL_KEY_FILE);
    expect(keyBytes(readFileSync(file, 'utf8').trim())).toEqual(first);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(encryptionKey()).toEqual(first);
  });

  test('without WAIVER_ENCRYPTION_KEY, a hosted function refuses rather than invent a key', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', '');
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'submit-waiver');
    vi.stubEnv('NETLIFY_LOCAL', '');
    vi.stubEnv('CONTEXT', 'production');
    expect(() => encryptionKey()).toThrow(MissingSettingError);
  });
});

describe('client fingerprints for the rate limit', () => {
  test('are stable per address, differ between addresses and hold no address', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const a = clientFingerprint('203.0.113.7');
    expect(clientFingerprint('203.0.113.7')).toBe(a);
    expect(clientFingerprint('203.0.113.8')).not.toBe(a);
    expect(a).not.toContain('203');
  });
});
