import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type SendMailOptions } from 'nodemailer';
import { mailConfig, type MailConfig } from '../config/mail.config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { SentMailsRepository } from './sent-mails.repository.js';
import type { Mail } from './mail.js';

/*
 * A slow or silent SMTP server must not hold the outbox worker, which hands every consumer
 * its batch in turn (docs/events.md, "The outbox"), for nodemailer's minutes-long defaults.
 */
const CONNECTION_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

/**
 * Sends mails (docs/mail.md, "Transports"): to the SMTP server of SMTP_URL, or without one
 * as `.eml` files under DATA_DIR/mail, with their links logged, for development.
 */
@Injectable()
export class MailService implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly send: (message: SendMailOptions & { to: string }, mail: Mail) => Promise<void>;
  private readonly close: () => void;

  constructor(
    @Inject(mailConfig.KEY) private readonly config: MailConfig,
    private readonly metrics: MetricsService,
    private readonly sentMails: SentMailsRepository,
  ) {
    if (config.smtpUrl) {
      const smtp = createTransport({
        url: config.smtpUrl,
        connectionTimeout: CONNECTION_TIMEOUT_MS,
        greetingTimeout: CONNECTION_TIMEOUT_MS,
        socketTimeout: SOCKET_TIMEOUT_MS,
      });
      this.send = async (message) => {
        await smtp.sendMail(message);
      };
      this.close = () => smtp.close();
    } else {
      const stream = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      this.send = async (message, mail) => {
        const { message: eml } = await stream.sendMail(message);
        await this.writeFile(eml, mail, message.to);
      };
      this.close = () => stream.close();
    }
  }

  /**
   * Sends `mail` to `to`, from MAIL_FROM, counted by template. Rejects when the server
   * refused it or could not be reached: the caller (an outbox consumer) is retried.
   */
  async deliver(to: string, mail: Mail): Promise<void> {
    const message = {
      from: this.config.from,
      to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    };
    try {
      await this.send(message, mail);
    } catch (error) {
      this.metrics.countMail(mail.template, 'failed');
      throw error;
    }
    this.metrics.countMail(mail.template, 'sent');
  }

  /**
   * Delivers `mail` for an outbox message, unless it was delivered for it before: the outbox
   * may hand a message over again (docs/mail.md, "Never twice").
   */
  async deliverOnce(outboxMessageId: number, to: string, mail: Mail): Promise<void> {
    if (await this.sentMails.wasSent(outboxMessageId, mail.template)) return;
    await this.deliver(to, mail);
    await this.sentMails.record(outboxMessageId, mail.template);
  }

  onApplicationShutdown(): void {
    this.close();
  }

  private async writeFile(eml: Buffer | Readable, mail: Mail, to: string): Promise<void> {
    await mkdir(this.config.fileDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const path = join(
      this.config.fileDir,
      `${stamp}-${mail.template}-${randomBytes(4).toString('hex')}.eml`,
    );
    await writeFile(path, eml, { mode: 0o600 });
    const links =
      this.config.logLinks && mail.links.length > 0 ? `; link: ${mail.links.join(' ')}` : '';
    this.logger.log(`Mail "${mail.subject}" to ${to} written to ${path}${links}`);
  }
}
