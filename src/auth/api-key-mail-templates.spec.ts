import { describe, expect, it } from '@jest/globals';
import { apiKeyExpiringMail } from './api-key-mail-templates.js';

// A key's name is its owner's text: the template must not rely on it being tame.
const HOSTILE = '<b>"CI" & \'Co\'</b>';
const mail = apiKeyExpiringMail({
  username: 'alice',
  keyName: HOSTILE,
  prefix: 'pk_test_AbCd',
  expiresAt: new Date('2026-12-08T10:30:00.000Z'),
});

describe('API key mail templates', () => {
  it('should render api-key-expiring naming the key and its end in UTC', () => {
    expect(mail.template).toBe('api-key-expiring');
    expect(mail.subject).toBe(`Your API key ${HOSTILE} expires soon`);
    expect(mail.text).toContain('Hello alice,');
    expect(mail.text).toContain(
      `${HOSTILE} (pk_test_AbCd…) expires at 2026-12-08T10:30:00.000Z (UTC)`,
    );
    expect(mail.links).toEqual([]);
  });

  it('should escape the key name in the HTML', () => {
    expect(mail.html).not.toContain(HOSTILE);
    expect(mail.html).toContain('&lt;b&gt;&quot;CI&quot; &amp; &#39;Co&#39;&lt;/b&gt;');
  });
});
