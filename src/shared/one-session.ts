/**
 * One session of a card's kind, named from the card's title, which names the kind in the plural
 * ("Private Sessions" on Home's card): a booking is one session, one class.
 */

/** "Private Sessions" → "Private Session", "Small Group Classes" → "Small Group Class". */
export const oneOf = (title: string) => title.replace(/(ss)es$|s$/i, '$1');

/** "a private session", "an in-home session", "a small group class". */
export function aOneOf(title: string): string {
  const one = oneOf(title).toLowerCase();
  return `${/^[aeiou]/.test(one) ? 'an' : 'a'} ${one}`;
}
