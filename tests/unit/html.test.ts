import { expect, test } from 'vitest';
import { escapeHtml } from '../../src/shared/html';

test('escapeHtml leaves no character that could open an element or close a quoted attribute', () => {
  expect(escapeHtml(`<script>alert("x" + 'y')</script> & more`)).toBe(
    '&lt;script&gt;alert(&quot;x&quot; + &#39;y&#39;)&lt;/script&gt; &amp; more',
  );
  expect(escapeHtml('&lt;')).toBe('&amp;lt;');
});
