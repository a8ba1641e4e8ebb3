/**
 * The studio's clock and postal address, checked by one definition in both places they are read:
 * the build (content/site.yaml as a collection) and the functions at run time. Build and server
 * only: the islands never import this, so it uses zod directly (see src/shared/zod.ts on why the
 * browser's copy runs jitless).
 */
import { z } from 'zod';
import { isTimeZone } from './time-zone';

/** Whether `name` is a time zone this runtime knows (an IANA name such as America/Los_Angeles). */
export { isTimeZone };

export const timeZoneSchema = z.string().refine(isTimeZone, {
  message: 'use an IANA time zone name, e.g. America/Los_Angeles',
});

export const addressSchema = z.strictObject({
  street: z.string().min(1),
  locality: z.string().min(1),
  region: z.string().min(1),
  postalCode: z.string().min(1),
  country: z.string().length(2, 'use the two-letter country code, e.g. US'),
});

export type PostalAddress = z.output<typeof addressSchema>;

/** One line, as a visitor and a calendar's LOCATION read it: "2140 SE Division St, Portland, OR 97202". */
export function formatAddress(address: PostalAddress): string {
  return `${address.street}, ${address.locality}, ${address.region} ${address.postalCode}`;
}
