/**
 * Where the consultation happens, in the words the booking page, the confirmation mail and the
 * invite's LOCATION all use, so a visitor reads the same place everywhere.
 */
import type { Availability } from './availability';
import { formatAddress, type PostalAddress } from '../studio';

export type ConsultationPlace =
  | { kind: 'studio'; label: string; address: string }
  | { kind: 'video'; label: string; link: string };

export function consultationPlace(
  availability: Pick<Availability, 'where' | 'videoLink'>,
  address: PostalAddress,
): ConsultationPlace {
  if (availability.where === 'video' && availability.videoLink) {
    return { kind: 'video', label: 'By video call', link: availability.videoLink };
  }
  return { kind: 'studio', label: 'At the studio', address: formatAddress(address) };
}
