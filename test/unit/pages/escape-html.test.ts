import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../shared/domain/escape-html.ts';

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
  });

  it('leaves other text, non-ASCII included, as it is', () => {
    expect(escapeHtml('Grüße, Zoë: 1 + 1 = 2 {name}')).toBe('Grüße, Zoë: 1 + 1 = 2 {name}');
  });
});
