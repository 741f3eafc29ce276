import type { Mail } from '../../../mail/mail.js';
import { composeMail, greetingOf } from '../../../mail/mail-layout.js';

/** Sent when an admin creates an account by invitation: the link lets the person set a password. */
export function invitationMail(params: {
  username: string;
  link: string;
  validDays: number;
}): Mail {
  return composeMail({
    template: 'invitation',
    subject: 'You are invited to the pet store',
    greeting: greetingOf(params.username),
    paragraphs: [
      `An administrator created a pet store account for you, with the username ${params.username}. Open the link below to choose your password and activate it.`,
      `The link works once, for ${params.validDays} days.`,
    ],
    action: { label: 'Choose your password', url: params.link },
  });
}
