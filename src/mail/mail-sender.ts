import { Injectable } from '@nestjs/common';
import { messageOf } from '../common/errors/message-of.js';
import { JobHandler } from '../events/event-handlers.decorator.js';
import { MAIL_QUEUE, MAIL_RETRY_FOR_MS, type MailJob } from './mail-queue.js';
import { MailService } from './mail.service.js';

/** The mail queue's consumer: sends each queued mail, once (docs/mail.md, "The mail queue"). */
@Injectable()
export class MailSender {
  constructor(private readonly mail: MailService) {}

  /**
   * Each job on its own: one mail the server refuses does not hold back the others of the
   * batch, and the retry of the batch skips those sent (MailService.deliverOnce).
   */
  @JobHandler(MAIL_QUEUE, { retryForMs: MAIL_RETRY_FOR_MS })
  async send(jobs: MailJob[], jobIds: number[]): Promise<void> {
    const failures: string[] = [];
    for (const [index, { subject, to, mail }] of jobs.entries()) {
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
