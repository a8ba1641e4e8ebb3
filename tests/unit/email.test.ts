import { expect, test } from 'vitest';
import { mailboxOf, normalEmail } from '../../src/shared/email';

test('normalEmail compares addresses in any case, without the spaces around them', () => {
  expect(normalEmail('  Ada@Example.TEST ')).toBe('ada@example.test');
});

test('mailboxOf reads every +tag of one mailbox as that mailbox', () => {
  expect(mailboxOf(' Ada+Reformer@Example.test')).toBe('ada@example.test');
  expect(mailboxOf('ada+1@example.test')).toBe(mailboxOf('ada+2@example.test'));
  expect(mailboxOf('grace@example.test')).toBe('grace@example.test');
});
