/**
 * A backup file is sealed whole: AES-256-GCM over everything in it, under a key derived (HKDF,
 * info `backup-file`) from the site's own key, `WAIVER_ENCRYPTION_KEY`. The seal both hides the
 * names and addresses a backup holds and proves the file unchanged: `npm run restore` opens it
 * whole before anything reads it, and a changed byte, a cut file or another key opens nothing.
 *
 * Layout: `SPPBAK01` (8 bytes), the id of the site key (8 ASCII hex digits, as every sealed value
 * names its key), the 12-byte IV, the 16-byte tag, then the ciphertext. The first 16 bytes are
 * bound in as associated data.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const MAGIC = Buffer.from('SPPBAK01', 'ascii');
const ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEAD = MAGIC.length + ID_BYTES;
const BODY = HEAD + IV_BYTES + TAG_BYTES;

/** The site's keys, as `keyring()` of src/server/platform/crypto.ts gives them. */
export interface BackupKeys {
  current: Buffer;
  currentId: string;
  byId: ReadonlyMap<string, Buffer>;
}

const fileKey = (key: Buffer) => Buffer.from(hkdfSync('sha256', key, '', 'backup-file', 32));

/** `plain` sealed with the current key. */
export function sealBackup(plain: Buffer, keys: BackupKeys): Buffer {
  const head = Buffer.concat([MAGIC, Buffer.from(keys.currentId, 'ascii')]);
  if (head.length !== HEAD) throw new Error(`A key id of ${ID_BYTES} characters was expected`);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', fileKey(keys.current), iv, {
    authTagLength: TAG_BYTES,
  });
  cipher.setAAD(head);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([head, iv, cipher.getAuthTag(), body]);
}

export type Opened =
  | { ok: true; plain: Buffer }
  /** Not sealed: pg_dump's own format or a gzipped tarball, as backups were before they were sealed. */
  | { ok: false; why: 'unsealed' }
  /** Sealed with a key not given (or its key id was changed). */
  | { ok: false; why: 'other-key'; keyId: string }
  /** Changed, cut short, or not a backup at all. */
  | { ok: false; why: 'damaged' };

/** Opens a file sealed by `sealBackup` with whichever of `keys` sealed it. */
export function openBackup(file: Buffer, keys: BackupKeys): Opened {
  if (file.length < BODY || !file.subarray(0, MAGIC.length).equals(MAGIC)) {
    return isUnsealed(file) ? { ok: false, why: 'unsealed' } : { ok: false, why: 'damaged' };
  }
  const keyId = file.subarray(MAGIC.length, HEAD).toString('latin1');
  const key = keys.byId.get(keyId);
  if (!key) return { ok: false, why: 'other-key', keyId };
  try {
    const opened = createDecipheriv(
      'aes-256-gcm',
      fileKey(key),
      file.subarray(HEAD, HEAD + IV_BYTES),
      {
        authTagLength: TAG_BYTES,
      },
    );
    opened.setAAD(file.subarray(0, HEAD));
    opened.setAuthTag(file.subarray(HEAD + IV_BYTES, BODY));
    return { ok: true, plain: Buffer.concat([opened.update(file.subarray(BODY)), opened.final()]) };
  } catch {
    return { ok: false, why: 'damaged' };
  }
}

/** What a backup holds, by its first bytes: pg_dump's custom format, or a gzipped tarball. */
export function backupKind(plain: Buffer): 'dump' | 'folder' | undefined {
  if (plain.subarray(0, 5).toString('latin1') === 'PGDMP') return 'dump';
  if (plain[0] === 0x1f && plain[1] === 0x8b) return 'folder';
  return undefined;
}

const isUnsealed = (file: Buffer) => backupKind(file) !== undefined;
