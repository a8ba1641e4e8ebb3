import { describe, expect, test } from 'vitest';
import { headingText } from '../../src/integrations/heading-face';

describe('the text a page sets in the headings’ face', () => {
  test('its h1 to h3 and its font-serif elements, entities read, tags and spaces dropped', () => {
    const html = `<header><a href="/" class="font-serif text-xl font-semibold">Still Point</a></header>
      <h1 id="t" class="text-4xl">Hello,
        I&#39;m <em>Maya</em></h1><p>Body text Zebra</p>
      <h2>Workshops &amp; events</h2><h3>1:1 &#x2014; 9&nbsp;am</h3><h4>Not this</h4>
      <span class="block font-serif text-3xl">$120</span><p class="font-sans">Quiet</p>`;
    expect(headingText(html)).toBe(
      "Still Point Hello, I'm Maya Workshops & events 1:1 — 9 am $120",
    );
  });

  test('a page without headings sets nothing in the face', () => {
    expect(headingText('<p>Only <b>text</b></p>')).toBe('');
  });
});
