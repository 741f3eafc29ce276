import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailService } from './mail.service.js';
import { SentMail } from './sent-mail.entity.js';
import { SentMailsRepository } from './sent-mails.repository.js';

/**
 * Mail (docs/mail.md): sends what another module rendered, to the SMTP server or as `.eml`
 * files, once per outbox message (sent_mails). It knows no module's mails.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SentMail])],
  providers: [MailService, SentMailsRepository],
  exports: [MailService],
})
export class MailModule {}
