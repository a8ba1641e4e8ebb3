import { createCipheriv, randomBytes } from 'node:crypto';
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
  isSealedWithCurrentKey,
  keyId,
  keyring,
  openBytes,
  sealBytes,
} from '../../src/server/platform/crypto';
import { MissingSettingError, SettingError, keyBytes } from '../../src/server/platform/settings';

const KEY = randomBytes(32).toString('base64');
const ROW = '5f0c7a52-9a4e-4a53-8d0e-0d4c3c1b2a10';
const OTHER_ROW = '8d1e2f30-7b6a-4c59-9e8d-7f6e5d4c3b2a';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('health data encryption (AES-256-GCM)', () => {
  test('round-trips any text, and the sealed form holds none of it', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        const sealed = encryptField(text, 'medicalConditions', ROW);
        expect(isEncrypted(sealed)).toBe(true);
        if (text.length >= 4) expect(sealed).not.toContain(text);
        expect(decryptField(sealed, 'medicalConditions', ROW)).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  test('seals the same text differently each time (a fresh IV)', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    expect(encryptField('asthma', 'medications', ROW)).not.toBe(
      encryptField('asthma', 'medications', ROW),
    );
  });

  test('refuses a value that was tampered with', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const parts = encryptField('knee surgery in 2021', 'medicalConditions', ROW).split(':');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => decryptField(parts.join(':'), 'medicalConditions', ROW)).toThrow();
  });

  test('refuses a value moved to another field', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const sealed = encryptField('insulin', 'medications', ROW);
    expect(() => decryptField(sealed, 'medicalConditions', ROW)).toThrow();
  });

  test("refuses a value moved to another row (another participant's waiver)", () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const sealed = encryptField('insulin', 'medications', ROW);
    expect(sealed.startsWith('enc2:')).toBe(true);
    expect(() => decryptField(sealed, 'medications', OTHER_ROW)).toThrow();
  });

  test('refuses a tag cut short: only the full 16-byte GCM tag is accepted', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const parts = encryptField('insulin', 'medications', ROW).split(':');
    // The first 4 bytes of the genuine tag: GCM checks only as many bytes as it is given, and
    // 4 bytes are forged in about 4 billion tries, or far fewer with a forger's tricks.
    parts[4] = Buffer.from(parts[4], 'base64url').subarray(0, 4).toString('base64url');
    expect(() => decryptField(parts.join(':'), 'medications', ROW)).toThrow(/wrong length/);
  });

  test('reads a value of the older format, bound to its field alone, and writes only the new one', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const key = Buffer.from(KEY, 'base64');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('medications', 'utf8'));
    const body = Buffer.concat([cipher.update('insulin', 'utf8'), cipher.final()]);
    const old = ['enc1', keyId(key), iv, body, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join(':');
    expect(decryptField(old, 'medications', ROW)).toBe('insulin');
    expect(decryptField(old, 'medications', OTHER_ROW)).toBe('insulin');
    expect(() => decryptField(old, 'medicalConditions', ROW)).toThrow();
    expect(isSealedWithCurrentKey(old)).toBe(false);
    expect(isSealedWithCurrentKey(encryptField('insulin', 'medications', ROW))).toBe(true);
  });

  test('says so when a value was sealed with a key it was not given', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', KEY);
    const sealed = encryptField('insulin', 'medications', ROW);
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', randomBytes(32).toString('hex'));
    expect(() => decryptField(sealed, 'medications', ROW)).toThrow(/WAIVER_ENCRYPTION_OLD_KEYS/);
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

describe('several keys: the newest seals, every one given opens', () => {
  const OLD = randomBytes(32).toString('base64');
  const NEW = randomBytes(32).toString('hex');

  test('what the old key sealed opens with WAIVER_ENCRYPTION_OLD_KEYS, and new values use the new key', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', OLD);
    const field = encryptField('insulin', 'medications', ROW);
    const pdf = sealBytes(Buffer.from('%PDF-1.7 health'), `waiver-pdf:${ROW}`);

    vi.stubEnv('WAIVER_ENCRYPTION_KEY', NEW);
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', `${randomBytes(32).toString('base64')}, ${OLD}`);
    expect(decryptField(field, 'medications', ROW)).toBe('insulin');
    expect(openBytes(pdf, `waiver-pdf:${ROW}`).toString()).toBe('%PDF-1.7 health');
    expect(isSealedWithCurrentKey(field)).toBe(false);
    const fresh = encryptField('insulin', 'medications', ROW);
    expect(fresh.split(':')[1]).toBe(keyId(Buffer.from(NEW, 'hex')));
    expect(keyring().byId.size).toBe(3);

    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', '');
    expect(() => decryptField(field, 'medications', ROW)).toThrow(/WAIVER_ENCRYPTION_OLD_KEYS/);
    expect(() => openBytes(pdf, `waiver-pdf:${ROW}`)).toThrow(/WAIVER_ENCRYPTION_OLD_KEYS/);
    expect(decryptField(fresh, 'medications', ROW)).toBe('insulin');
  });

  test('an old key that cannot be read is an error naming the setting, never quoting it', () => {
    vi.stubEnv('WAIVER_ENCRYPTION_KEY', NEW);
    vi.stubEnv('WAIVER_ENCRYPTION_OLD_KEYS', `${OLD},not-a-key`);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => keyring()).toThrow(SettingError);
    expect(() => keyring()).toThrow(/^WAIVER_ENCRYPTION_OLD_KEYS must be keys of 32 bytes/);
    expect(() => keyring()).not.toThrow(OLD);
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
