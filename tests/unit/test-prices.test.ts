/**
 * Her ordinary price change must not turn the tests red: the browser test of paying online
 * reads its amounts from content/ (tests/fixtures/prices.ts), as a visitor reads them.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { sessionPrice } from '../fixtures/prices';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the prices the tests expect', () => {
  test('are read from content, as the site reads them', () => {
    const card = readFileSync(resolve(ROOT, 'content/sessions/private.md'), 'utf8');
    const price = Number(/^price: \$?([\d.]+)/m.exec(card)![1]);
    expect(sessionPrice('private')).toEqual({
      cents: Math.round(price * 100),
      words: `$${price}`,
    });
  });

  test('the browser test of paying online writes no amount of its own', () => {
    const spec = readFileSync(resolve(ROOT, 'tests/e2e/payments.spec.ts'), 'utf8');
    // "$120", or 12000 cents: an amount only content may say.
    expect(spec.match(/\$\d|\b\d{4,}\b/g) ?? []).toEqual([]);
  });
});
