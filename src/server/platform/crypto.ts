import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
} from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isHostedFunction } from './hosting';
import { projectPath } from './paths';
import { keyBytes, missingSetting, readSetting } from './settings';

/**
 * Application-level encryption of health data (AES-256-GCM). The key comes from
 * `WAIVER_ENCRYPTION_KEY` (32 bytes, base64 or hex). Without it, a local run creates a random
 * key once in `.netlify/waiver-encryption.key` and keeps using it, so `npm start` and the tests
 * work on a fresh clone; a hosted function refuses instead, because a key made on a throwaway
 * serverless instance would leave the data it encrypted unreadable.
 */

export const LOCAL_KEY_FILE = '.netlify/waiver-encryption.key';
const FORMAT = 'enc1';

let local: Buffer | undefined;

function readKeyFile(file: string): Buffer {
  const key = keyBytes(readFileSync(file, 'utf8').trim());
  if (!key) throw new Error(`${LOCAL_KEY_FILE} must hold 32 bytes, written as base64 or hex`);
  return key;
}

function localKey(): Buffer {
  const file = projectPath(LOCAL_KEY_FILE);
  try {
    return readKeyFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true });
  // Written whole under a name of this process's own, then linked into place: two processes
  // starting at once never use different keys, nor read a key file half written.
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
    console.info(`No WAIVER_ENCRYPTION_KEY set: created a local key in ${LOCAL_KEY_FILE}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  return readKeyFile(file);
}

/** The 32-byte data key. Throws MissingSettingError on a host with no key configured. */
export function encryptionKey(): Buffer {
  const key = configuredKey();
  if (key) return key;
  throw missingSetting('WAIVER_ENCRYPTION_KEY', 'waivers cannot be stored without their key');
}

/** `WAIVER_ENCRYPTION_KEY`, else (not on a host) the local key; `undefined` on a host without. */
function configuredKey(): Buffer | undefined {
  const key = readSetting('WAIVER_ENCRYPTION_KEY');
  if (key || isHostedFunction()) return key;
  local ??= localKey();
  return local;
}

/** A short fingerprint naming the key a value was sealed with (not a secret). */
function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Seals `plaintext` as `enc1:<key id>:<iv>:<ciphertext>:<tag>` (base64url parts). `field` is
 * bound in as associated data, so a value moved to another column no longer decrypts.
 */
export function encryptField(plaintext: string, field: string): string {
  const key = encryptionKey();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(field, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, body, cipher.getAuthTag()].map((part) => part.toString('base64url'));
  return [FORMAT, keyId(key), ...parts].join(':');
}

/** Opens a value sealed by `encryptField` for the same field. Throws if it was tampered with. */
export function decryptField(sealed: string, field: string): string {
  const [format, id, iv, body, tag, ...rest] = sealed.split(':');
  if (format !== FORMAT || rest.length > 0 || !iv || tag === undefined) {
    throw new Error(`Not an encrypted ${field} value`);
  }
  const key = encryptionKey();
  if (id !== keyId(key)) {
    throw new Error(`The ${field} value was encrypted with another key (${id})`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(field, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([
    decipher.update(Buffer.from(body, 'base64url')),
    decipher.final(),
  ]).toString('utf8');
}

/**
 * Seals bytes (a PDF that holds health information) the way `encryptField` seals text:
 * `enc1` + the key id (12 ASCII bytes), then the 12-byte IV, the 16-byte tag and the ciphertext.
 * `label` is bound in as associated data: name the row it belongs to, so it opens nowhere else.
 */
export function sealBytes(data: Buffer, label: string): Buffer {
  const key = encryptionKey();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(label, 'utf8'));
  const body = Buffer.concat([cipher.update(data), cipher.final()]);
  return Buffer.concat([
    Buffer.from(`${FORMAT}${keyId(key)}`, 'ascii'),
    iv,
    cipher.getAuthTag(),
    body,
  ]);
}

/** Opens bytes sealed by `sealBytes` under the same label. Throws if they were tampered with. */
export function openBytes(sealed: Buffer, label: string): Buffer {
  const head = sealed.subarray(0, 12).toString('ascii');
  const key = encryptionKey();
  if (sealed.length < 40 || head !== `${FORMAT}${keyId(key)}`) {
    throw new Error(`${label}: not sealed, or sealed with another key`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(12, 24));
  decipher.setAAD(Buffer.from(label, 'utf8'));
  decipher.setAuthTag(sealed.subarray(24, 40));
  return Buffer.concat([decipher.update(sealed.subarray(40)), decipher.final()]);
}

export function isEncrypted(value: string): boolean {
  return value.startsWith(`${FORMAT}:`);
}

/**
 * A keyed hash of the visitor's IP address for the rate-limit table, which never stores the
 * address itself. Keyed (HMAC), because a plain hash of the 4 billion IPv4 addresses is undone in
 * minutes. The key is derived from the data key; if none is configured on a host, the contact
 * form must keep working, so it falls back to an unkeyed hash and says so once.
 */
export function clientFingerprint(ip: string): string {
  return createHmac('sha256', fingerprintKey()).update(ip).digest('base64url');
}

let warned = false;

function fingerprintKey(): Buffer {
  const key = configuredKey();
  if (key) return Buffer.from(hkdfSync('sha256', key, '', 'client-ip-fingerprint', 32));
  if (!warned) console.warn('No WAIVER_ENCRYPTION_KEY: client IPs are hashed without a key');
  warned = true;
  return Buffer.from('still-point-pilates/client-ip', 'utf8');
}

/**
 * A token only this site can make for `value` and `purpose` (an HMAC under a key derived from the
 * data key; 32 bytes as base64url, 43 characters): a link in a mail that needs no secret stored.
 * The database keeps only the token's SHA-256 to find its row, so a copy of it opens nothing, and
 * the mail can be composed again later (a retry) with the same link.
 */
export function keyedToken(purpose: string, value: string): string {
  const key = Buffer.from(hkdfSync('sha256', encryptionKey(), '', `token:${purpose}`, 32));
  return createHmac('sha256', key).update(value).digest('base64url');
}
