import type { DomainEventBase } from '../events/domain-event.js';
import type { Mail } from './mail.js';

/**
 * The mail module's queue (docs/mail.md, "The mail queue"): another module renders a mail and
 * queues it here with `Jobs.enqueue(MAIL_QUEUE, mailJob(...))`, in the transaction of the
 * change it tells of. Its rows name it: keep it stable.
 */
export const MAIL_QUEUE = 'mail.send';

/** The contract's span of retries for a mail: 24 hours, however many attempts that takes. */
export const MAIL_RETRY_FOR_MS = 24 * 60 * 60 * 1000;

/**
 * Where a mail goes: an address, or an account, whose address the sender reads when the mail
 * leaves (MailRecipientsService), so that the change that queues it reads none.
 */
export type MailTo = string | { userId: number };

/** A rendered mail to send once, to `to`. */
export interface MailJob extends DomainEventBase {
  type: 'mail.send';
  to: MailTo;
  mail: Mail;
}

/**
 * The job that sends `mail` to `to`. `subject` orders the mails that share it, and lets the
 * queuing module cancel them (`Jobs.cancel(MAIL_QUEUE, subject)`).
 */
export const mailJob = (subject: string, to: MailTo, mail: Mail): MailJob => ({
  type: 'mail.send',
  subject,
  to,
  mail,
});
