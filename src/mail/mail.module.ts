import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailSender } from './mail-sender.js';
import { MailService } from './mail.service.js';
import { SentMail } from './sent-mail.entity.js';
import { SentMailsRepository } from './sent-mails.repository.js';

/**
 * Mail (docs/mail.md): sends what another module rendered and queued (mail-queue.ts), to the
 * SMTP server or as `.eml` files, once per job (sent_mails). It knows no module's mails, and
 * exports nothing: its surface is the queue.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SentMail])],
  providers: [MailService, MailSender, SentMailsRepository],
})
export class MailModule {}
