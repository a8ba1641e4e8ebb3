/** An amount in cents as a visitor reads it: 4500 → "$45", 4250 → "$42.50". */
export const dollars = (cents: number): string =>
  cents % 100 === 0 ? `$${cents / 100}` : `$${(cents / 100).toFixed(2)}`;
