import type { Mail } from '../../../mail/mail.js';
import { composeMail, greetingOf } from '../../../mail/mail-layout.js';

/**
 * Sent to the new address of a user's own email change: the link makes the change. It
 * greets no one: the address is not verified yet.
 */
export function emailChangeMail(params: { link: string; validHours: number }): Mail {
  return composeMail({
    template: 'email-change',
    subject: 'Confirm your new email address',
    greeting: greetingOf(null),
    paragraphs: [
      'Someone, hopefully you, asked to use this address for a pet store account. Open the link below to confirm it; until then the account keeps its current address.',
      `The link works once, for ${params.validHours} hours. If you did not ask, ignore this mail: nothing changes without it.`,
    ],
    action: { label: 'Confirm your new address', url: params.link },
  });
}
