/**
 * The studio's clock and postal address, checked by one definition in both places they are read:
 * the build (content/site.yaml as a collection) and the functions at run time. Build and server
 * only: the islands never import this, so it uses zod directly (see src/shared/zod.ts on why the
 * browser's copy runs jitless).
 */
import { z } from 'zod';
import { isTimeZone } from './time-zone';
import { fields, says, words } from './content-fields';

/** Whether `name` is a time zone this runtime knows (an IANA name such as America/Los_Angeles). */
export { isTimeZone };

const TIME_ZONE_HINT = 'use an IANA time zone name, e.g. America/Los_Angeles';

export const timeZoneSchema = z
  .string(says(TIME_ZONE_HINT))
  .refine(isTimeZone, { message: TIME_ZONE_HINT });

const COUNTRY_HINT = 'use the two-letter country code, e.g. US';

export const addressSchema = fields(
  {
    street: words('write the street and number, e.g. 2140 SE Division St'),
    locality: words('write the city, e.g. Portland'),
    region: words("write the state's two letters, e.g. OR"),
    postalCode: z.preprocess(
      (value) => (typeof value === 'number' ? String(value) : value),
      words("write the ZIP code in quotes, e.g. '97202'"),
    ),
    country: z.string(says(COUNTRY_HINT)).length(2, COUNTRY_HINT),
  },
  'an address',
);

export type PostalAddress = z.output<typeof addressSchema>;

/** One line, as a visitor and a calendar's LOCATION read it: "2140 SE Division St, Portland, OR 97202". */
export function formatAddress(address: PostalAddress): string {
  return `${address.street}, ${address.locality}, ${address.region} ${address.postalCode}`;
}
