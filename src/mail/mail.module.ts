import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailRecipientsService } from './mail-recipients.service.js';
import { MailSender } from './mail-sender.js';
import { MailService } from './mail.service.js';
import { SentMail } from './sent-mail.entity.js';
import { SentMailsRepository } from './sent-mails.repository.js';

/**
 * Mail (docs/mail.md): sends what another module rendered and queued (mail-queue.ts), to the
 * SMTP server or as `.eml` files, once per job (sent_mails). It knows no module's mails: its
 * surface is the queue, and where the users module registers how to read an account's address.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SentMail])],
  providers: [MailService, MailSender, SentMailsRepository, MailRecipientsService],
  exports: [MailRecipientsService],
})
export class MailModule {}
