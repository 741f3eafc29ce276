import { Injectable } from '@nestjs/common';
import { messageOf } from '../common/errors/message-of.js';
import { JobHandler } from '../events/event-handlers.decorator.js';
import { MailRecipientsService } from './mail-recipients.service.js';
import { MAIL_QUEUE, MAIL_RETRY_FOR_MS, type MailJob } from './mail-queue.js';
import { MailService } from './mail.service.js';

/** The mail queue's consumer: sends each queued mail, once (docs/mail.md, "The mail queue"). */
@Injectable()
export class MailSender {
  constructor(
    private readonly mail: MailService,
    private readonly recipients: MailRecipientsService,
  ) {}

  /**
   * Each job on its own: one mail the server refuses does not hold back the others of the
   * batch, and the retry of the batch skips those sent (MailService.deliverOnce). The
   * addresses of the mails queued to accounts are read first, in one call; a mail to an
   * account deleted since goes nowhere.
   */
  @JobHandler(MAIL_QUEUE, { retryForMs: MAIL_RETRY_FOR_MS })
  async send(jobs: MailJob[], jobIds: number[]): Promise<void> {
    const userIds = jobs.flatMap(({ to }) => (typeof to === 'string' ? [] : [to.userId]));
    const addresses =
      userIds.length === 0 ? new Map<number, string>() : await this.recipients.addressesOf(userIds);
    const failures: string[] = [];
    for (const [index, { subject, to: recipient, mail }] of jobs.entries()) {
      const to = typeof recipient === 'string' ? recipient : addresses.get(recipient.userId);
      if (to === undefined) continue;
      try {
        await this.mail.deliverOnce(jobIds[index], to, mail);
      } catch (error) {
        failures.push(`${subject} (${mail.template}): ${messageOf(error)}`);
      }
    }
    if (failures.length > 0) {
      throw new Error(`${failures.length} mail(s) not sent: ${failures.join('; ')}`);
    }
  }
}
