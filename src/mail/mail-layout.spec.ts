import { describe, expect, it } from '@jest/globals';
import { escapeHtml } from './mail-layout.js';

describe(escapeHtml.name, () => {
  it('should escape the five characters that matter in text and attributes', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
  });
});
