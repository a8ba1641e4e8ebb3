/** An amount in cents as a visitor reads it: 4500 → "$45", 4250 → "$42.50". */
export const dollars = (cents: number): string =>
  cents % 100 === 0 ? `$${cents / 100}` : `$${(cents / 100).toFixed(2)}`;

/**
 * An amount Stripe took, in its currency's smallest unit, as a person reads it: 4500 usd →
 * "$45", 12000 jpy → "¥12,000", 1999 eur → "€19.99".
 */
export function amountIn(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  if (code === 'USD') return dollars(amount);
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
  return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}
