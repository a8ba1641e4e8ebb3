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
/** A field's format: `enc2` binds the row and the field; `enc1` (read only) the field alone. */
const FORMAT = 'enc2';
const FIELD_FORMATS = new Set(['enc1', FORMAT]);
/** Sealed bytes (a PDF) have been bound to their row from the start: their format stays `enc1`. */
const BYTES_FORMAT = 'enc1';

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
  return keyring().current;
}

/** `WAIVER_ENCRYPTION_KEY`, else (not on a host) the local key; `undefined` on a host without. */
function configuredKey(): Buffer | undefined {
  const key = readSetting('WAIVER_ENCRYPTION_KEY');
  if (key || isHostedFunction()) return key;
  local ??= localKey();
  return local;
}

/** A short fingerprint naming the key a value was sealed with (not a secret). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * The keys: the current one, which seals everything new, and the earlier ones of
 * `WAIVER_ENCRYPTION_OLD_KEYS`, which still open what they sealed until `npm run rotate-key` has
 * moved it to the current key. Each is known by its fingerprint, which every sealed value names.
 */
export interface Keyring {
  current: Buffer;
  currentId: string;
  /** Every key by its fingerprint, the current one included. */
  byId: ReadonlyMap<string, Buffer>;
}

export function keyring(): Keyring {
  const current = configuredKey();
  if (!current) {
    throw missingSetting('WAIVER_ENCRYPTION_KEY', 'waivers cannot be stored without their key');
  }
  const byId = new Map<string, Buffer>();
  for (const key of [current, ...readSetting('WAIVER_ENCRYPTION_OLD_KEYS')]) {
    const id = keyId(key);
    const known = byId.get(id);
    // Two different keys with one fingerprint (1 in 4 billion): a value could not say which.
    if (known && !known.equals(key)) throw new Error(`Two encryption keys share the id ${id}`);
    byId.set(id, key);
  }
  return { current, currentId: keyId(current), byId };
}

function keyFor(id: string | undefined, what: string): Buffer {
  const key = id === undefined ? undefined : keyring().byId.get(id);
  if (!key) {
    throw new Error(
      `${what} was encrypted with another key (${id}): give it in WAIVER_ENCRYPTION_OLD_KEYS`,
    );
  }
  return key;
}

const IV_BYTES = 12;
/** GCM's full tag. Node would accept a shorter one, which a forger needs far fewer tries to hit. */
const TAG_BYTES = 16;

function decipher(key: Buffer, iv: Buffer, tag: Buffer, aad: string, what: string) {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new Error(`${what}: not a sealed value (its IV or tag has the wrong length)`);
  }
  const opened = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  opened.setAAD(Buffer.from(aad, 'utf8'));
  opened.setAuthTag(tag);
  return opened;
}

/**
 * What a field's value is bound to (GCM's associated data): in `enc2`, the row and the field, so
 * a value copied into another participant's row, or into another column, no longer opens; in the
 * older `enc1`, the field alone (read, never written).
 */
const fieldAad = (format: string, field: string, row: string) =>
  format === FORMAT ? JSON.stringify([row, field]) : field;

/**
 * Seals `plaintext` as `enc2:<key id>:<iv>:<ciphertext>:<tag>` (base64url parts) with the
 * current key. `field` and `row` (the id of the row it is stored in, chosen before the row is
 * written) are bound in as associated data: the value opens only in that column of that row.
 */
export function encryptField(plaintext: string, field: string, row: string): string {
  const { current, currentId } = keyring();
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', current, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(fieldAad(FORMAT, field, row), 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, body, cipher.getAuthTag()].map((part) => part.toString('base64url'));
  return [FORMAT, currentId, ...parts].join(':');
}

/**
 * Opens a value sealed by `encryptField` for the same field of the same row (or an `enc1`
 * value, bound to its field only), with whichever known key sealed it. Throws if it was tampered
 * with, moved, or sealed with a key not given.
 */
export function decryptField(sealed: string, field: string, row: string): string {
  const [format, id, iv, body, tag, ...rest] = sealed.split(':');
  if (!FIELD_FORMATS.has(format) || rest.length > 0 || !iv || tag === undefined) {
    throw new Error(`Not an encrypted ${field} value`);
  }
  const opened = decipher(
    keyFor(id, `The ${field} value`),
    Buffer.from(iv, 'base64url'),
    Buffer.from(tag, 'base64url'),
    fieldAad(format, field, row),
    field,
  );
  return Buffer.concat([opened.update(Buffer.from(body, 'base64url')), opened.final()]).toString(
    'utf8',
  );
}

/** Whether a field's value is sealed in the current format with the current key. */
export function isSealedWithCurrentKey(sealed: string): boolean {
  return sealed.startsWith(`${FORMAT}:${keyring().currentId}:`);
}

/** The same test as a SQL `LIKE` pattern: the values sealed with the current key. */
export const sealedWithCurrentKeyPattern = () => `${FORMAT}:${keyring().currentId}:%`;

const BYTES_HEAD = 12;

/**
 * Seals bytes (a PDF that holds health information) the way `encryptField` seals text:
 * `enc1` + the key id (12 ASCII bytes), then the 12-byte IV, the 16-byte tag and the ciphertext.
 * `label` is bound in as associated data: name the row it belongs to, so it opens nowhere else.
 */
export function sealBytes(data: Buffer, label: string): Buffer {
  const { current, currentId } = keyring();
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', current, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(label, 'utf8'));
  const body = Buffer.concat([cipher.update(data), cipher.final()]);
  return Buffer.concat([
    Buffer.from(`${BYTES_FORMAT}${currentId}`, 'ascii'),
    iv,
    cipher.getAuthTag(),
    body,
  ]);
}

/** Opens bytes sealed by `sealBytes` under the same label. Throws if they were tampered with. */
export function openBytes(sealed: Buffer, label: string): Buffer {
  const head = sealed.subarray(0, BYTES_HEAD).toString('ascii');
  if (sealed.length < BYTES_HEAD + IV_BYTES + TAG_BYTES || !head.startsWith(BYTES_FORMAT)) {
    throw new Error(`${label}: not sealed`);
  }
  const after = BYTES_HEAD + IV_BYTES;
  const opened = decipher(
    keyFor(head.slice(BYTES_FORMAT.length), label),
    sealed.subarray(BYTES_HEAD, after),
    sealed.subarray(after, after + TAG_BYTES),
    label,
    label,
  );
  return Buffer.concat([opened.update(sealed.subarray(after + TAG_BYTES)), opened.final()]);
}

/** The first bytes of whatever `sealBytes` seals now: bytes that start otherwise need a new seal. */
export function currentBytesHead(): Buffer {
  return Buffer.from(`${BYTES_FORMAT}${keyring().currentId}`, 'ascii');
}

export function isEncrypted(value: string): boolean {
  return [...FIELD_FORMATS].some((format) => value.startsWith(`${format}:`));
}

/**
 * A keyed hash of the visitor's IP address for the rate-limit table, which never stores the
 * address itself. Keyed (HMAC), because a plain hash of the 4 billion IPv4 addresses is undone in
 * minutes. The key is derived from the data key; if none is configured on a host, the contact
 * form must keep working, so it falls back to an unkeyed hash and says so once.
 */
export function clientFingerprint(ip: string): string {
  return createHmac('sha256', fingerprintKey('client-ip-fingerprint', 'client-ip'))
    .update(ip)
    .digest('base64url');
}

/**
 * A keyed hash of what a form submission said (its fields as the schema read them), kept with
 * the row so that a repeat of its submission id is told from another request under the same id.
 * Keyed like `clientFingerprint`: the fields are people's details.
 */
export function requestFingerprint(canonical: string): string {
  return createHmac('sha256', fingerprintKey('request-fingerprint', 'request'))
    .update(canonical)
    .digest('base64url');
}

/**
 * A keyed hash that vouches for words the site wrote into an address (a refusal page's link,
 * request/refusal-link.ts), so no one else can make the site's page say other words. Keyed by
 * the data key alone: `undefined` where none is configured (a host without the key).
 */
export function vouchFor(purpose: string, text: string): string | undefined {
  const key = configuredKey();
  if (!key) return undefined;
  return createHmac('sha256', Buffer.from(hkdfSync('sha256', key, '', `vouch:${purpose}`, 32)))
    .update(text)
    .digest('base64url');
}

let warned = false;

function fingerprintKey(purpose: string, unkeyed: string): Buffer {
  const key = configuredKey();
  if (key) return Buffer.from(hkdfSync('sha256', key, '', purpose, 32));
  if (!warned) console.warn('No WAIVER_ENCRYPTION_KEY: client IPs are hashed without a key');
  warned = true;
  return Buffer.from(`still-point-pilates/${unkeyed}`, 'utf8');
}

/**
 * The tokens an earlier version of the site made for `value` and `purpose`, one under each key
 * given (an HMAC under a key derived from it; 32 bytes as base64url). Read only: a booking's
 * manage link made before its token was random and sealed (migration 0031) is known by the one
 * of these whose SHA-256 its row holds. Never used for a new token: one derived from the key
 * changes when the key does, and so would every link composed after a rotation.
 */
export function keyedTokens(purpose: string, value: string): { keyId: string; token: string }[] {
  return [...keyring().byId].map(([id, data]) => {
    const key = Buffer.from(hkdfSync('sha256', data, '', `token:${purpose}`, 32));
    return { keyId: id, token: createHmac('sha256', key).update(value).digest('base64url') };
  });
}
