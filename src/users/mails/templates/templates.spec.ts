import { describe, expect, it } from '@jest/globals';
import { emailChangeAttemptMail } from './email-change-attempt.template.js';
import { emailChangeMail } from './email-change.template.js';
import { invitationMail } from './invitation.template.js';
import type { Mail } from '../../../mail/mail.js';
import { escapeHtml } from '../../../mail/mail-layout.js';
import { passwordChangedMail } from './password-changed.template.js';
import { passwordResetMail } from './password-reset.template.js';
import { registrationAttemptMail } from './registration-attempt.template.js';
import { verificationMail } from './verification.template.js';

// A username may hold none of these, but a template must not rely on it.
const HOSTILE = '<b>"Tom" & \'Jerry\'</b>';
const LINK = 'https://shop.example.com/console/reset-password?token=abc&x=<1>';

const rendered: [string, Mail, string][] = [
  ['verification', verificationMail({ link: LINK, validHours: 24 }), '24 hours'],
  [
    'registration-attempt',
    registrationAttemptMail({ username: HOSTILE, forgotPasswordUrl: LINK }),
    'No second account',
  ],
  [
    'password-reset',
    passwordResetMail({ username: HOSTILE, link: LINK, validMinutes: 60 }),
    '60 minutes',
  ],
  ['invitation', invitationMail({ username: HOSTILE, link: LINK, validDays: 7 }), '7 days'],
  [
    'password-changed',
    passwordChangedMail({ username: HOSTILE, forgotPasswordUrl: LINK }),
    'changed',
  ],
  ['email-change', emailChangeMail({ link: LINK, validHours: 24 }), '24 hours'],
  [
    'email-change-attempt',
    emailChangeAttemptMail({ username: HOSTILE, forgotPasswordUrl: LINK }),
    'Nothing was changed',
  ],
];

describe('mail templates', () => {
  it.each(rendered)(
    'should render %s with a subject, a text and an HTML part',
    (template, mail, says) => {
      expect(mail.template).toBe(template);
      expect(mail.subject).toMatch(/^\S.{5,80}$/);
      expect(mail.text).toContain(says);
      expect(mail.html).toContain(escapeHtml(says));
      expect(mail.html).toMatch(/^<!DOCTYPE html>[\s\S]*<\/html>$/);
    },
  );

  it.each(rendered)('should carry the link in both parts of %s, and list it', (_, mail) => {
    expect(mail.links).toEqual([LINK]);
    expect(mail.text).toContain(`\n${LINK}\n`);
    expect(mail.html).toContain(`href="${escapeHtml(LINK)}"`);
  });

  // Those to an address not yet verified greet no one (the name is the requester's text).
  const unverified = new Set(['verification', 'email-change']);

  it.each(rendered.filter(([template]) => unverified.has(template)))(
    'should greet no one in %s',
    (_, mail) => {
      expect(mail.text.startsWith('Hello,\n')).toBe(true);
      expect(mail.html).toContain('<p>Hello,</p>');
    },
  );

  it('should greet no one in a reset to an address not yet verified', () => {
    const mail = passwordResetMail({ username: null, link: LINK, validMinutes: 60 });
    expect(mail.text.startsWith('Hello,\n')).toBe(true);
  });

  it.each(rendered.filter(([template]) => !unverified.has(template)))(
    'should greet by name in %s, escaped in HTML only',
    (_, mail) => {
      expect(mail.text).toContain(`Hello ${HOSTILE},`);
      expect(mail.html).toContain(
        'Hello &lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;,',
      );
      expect(mail.html).not.toContain('<b>');
    },
  );

  it('should name the account in an invitation', () => {
    const mail = invitationMail({ username: 'new.clerk', link: LINK, validDays: 7 });
    expect(mail.text).toContain('with the username new.clerk');
  });
});
