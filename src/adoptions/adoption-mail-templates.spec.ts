import { describe, expect, it } from '@jest/globals';
import type { Mail } from '../mail/mail.js';
import {
  adoptionApprovedMail,
  adoptionCompletedMail,
  adoptionExpiredMail,
  adoptionHoldReminderMail,
  adoptionRejectedMail,
} from './adoption-mail-templates.js';

// A pet's name and a reason are staff's text: a template must not rely on them being tame.
const HOSTILE = '<b>"Rex" & \'Co\'</b>';
const FACTS = { adoptionId: 42, petName: HOSTILE, adopterUsername: 'alice' };
const HOLD = new Date('2026-12-08T10:30:00.000Z');

const rendered: [string, Mail][] = [
  ['adoption-approved', adoptionApprovedMail(FACTS, HOLD)],
  ['adoption-completed', adoptionCompletedMail(FACTS)],
  ['adoption-rejected', adoptionRejectedMail(FACTS, HOSTILE)],
  ['adoption-expired', adoptionExpiredMail(FACTS)],
  ['adoption-hold-reminder', adoptionHoldReminderMail(FACTS, HOLD)],
];

describe('adoption mail templates', () => {
  it.each(rendered)('should render %s naming the adoption and its pet', (template, mail) => {
    expect(mail.template).toBe(template);
    expect(mail.text).toContain('Hello alice,');
    expect(mail.text).toContain(`adoption #42 of ${HOSTILE}`);
    expect(mail.links).toEqual([]);
  });

  it.each(rendered)('should escape the pet name in the HTML of %s', (_template, mail) => {
    expect(mail.html).not.toContain(HOSTILE);
    expect(mail.html).toContain('&lt;b&gt;&quot;Rex&quot; &amp; &#39;Co&#39;&lt;/b&gt;');
  });

  it('should give the hold in ISO 8601, UTC', () => {
    expect(adoptionApprovedMail(FACTS, HOLD).text).toContain('2026-12-08T10:30:00.000Z (UTC)');
    expect(adoptionHoldReminderMail(FACTS, HOLD).text).toContain('2026-12-08T10:30:00.000Z (UTC)');
  });

  it('should leave the reason out of a rejection without one', () => {
    expect(adoptionRejectedMail(FACTS, null).text).not.toContain('reason');
  });
});
