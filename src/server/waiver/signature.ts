import { PNG } from 'pngjs';
import { TEXT_CHANGED } from '../../shared/form-answer';
import { MAX_SIGNATURE_BYTES, SIGNATURE_PREFIX, type Waiver } from '../../shared/waiver';
import { failed, ok, type Result } from '../../shared/result';
import type { Problem } from '../request/responses';
import type { SignedWith } from './store';
import { currentWaiverText } from './current-text';
import { typedSignaturePng } from './typed-signature';

export const SIGNATURE_LIMITS = {
  maxBytes: MAX_SIGNATURE_BYTES,
  minWidth: 50,
  minHeight: 25,
  maxWidth: 2000,
  maxHeight: 1000,
} as const;

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A signature that passed: its PNG and size. */
export interface CheckedSignature {
  png: Buffer;
  width: number;
  height: number;
}

const SIGN_AGAIN = 'Please clear the signature and sign again.';

/**
 * The schema only sees a string; this makes sure it is a real PNG of a plausible size that
 * someone actually drew on, before anything is stored. The header is read before decoding
 * so a tiny file that claims enormous dimensions is refused without allocating them.
 */
export function checkSignature(dataUrl: string): Result<CheckedSignature, string> {
  if (!dataUrl.startsWith(SIGNATURE_PREFIX)) {
    return failed(`Your signature must be a PNG image. ${SIGN_AGAIN}`);
  }
  const png = Buffer.from(dataUrl.slice(SIGNATURE_PREFIX.length), 'base64');
  if (png.length > SIGNATURE_LIMITS.maxBytes) {
    return failed(`Your signature image is too large. ${SIGN_AGAIN}`);
  }
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG_MAGIC)) {
    return failed(`Your signature is not a PNG image. ${SIGN_AGAIN}`);
  }
  if (png.toString('latin1', 12, 16) !== 'IHDR') {
    return failed(`Your signature image is damaged. ${SIGN_AGAIN}`);
  }
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const { minWidth, minHeight, maxWidth, maxHeight } = SIGNATURE_LIMITS;
  if (width < minWidth || height < minHeight || width > maxWidth || height > maxHeight) {
    return failed(
      `Your signature image must be between ${minWidth}x${minHeight} and ${maxWidth}x${maxHeight} pixels. ${SIGN_AGAIN}`,
    );
  }
  let image: PNG;
  try {
    image = PNG.sync.read(png);
  } catch {
    return failed(`Your signature image is damaged. ${SIGN_AGAIN}`);
  }
  if (!hasInk(image)) {
    return failed('Your signature is empty. Please sign in the box before submitting.');
  }
  return ok({ png, width, height });
}

// Ink is any visible pixel that is not (nearly) white; a blank pad is all white or transparent.
function hasInk({ data }: PNG): boolean {
  let inked = 0;
  for (let i = 0; i < data.length; i += 4) {
    const visible = data[i + 3] > 32;
    const dark = data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200;
    if (visible && dark && ++inked >= 10) return true;
  }
  return false;
}

/**
 * What a waiver was signed with and under: its signature image (the pad's PNG, checked, or the
 * typed name drawn here when the form came without one) and the waiver text in force, which must
 * be the version the participant read.
 */
export function signedWith(waiver: Waiver): Result<SignedWith, Problem> {
  const text = currentWaiverText();
  if (waiver.waiverVersion && waiver.waiverVersion !== text.version) {
    return failed({ status: 409, error: TEXT_CHANGED });
  }
  const name = waiver.signatureName || null;
  if (!waiver.signature) {
    const signaturePng = typedSignaturePng(waiver.signatureName);
    return ok({ signaturePng, signatureKind: 'typed-server', signatureName: name, text });
  }
  const signature = checkSignature(waiver.signature);
  if (!signature.ok) {
    const error = signature.problem;
    return failed({ status: 422, error, fieldErrors: { signature: error } });
  }
  const signatureKind = waiver.signatureKind ?? 'drawn';
  const signatureName = signatureKind === 'typed' ? name : null;
  return ok({ signaturePng: signature.value.png, signatureKind, signatureName, text });
}
