import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module.js';
import { AccountMailer } from './account.mailer.js';
import { MailService } from './mail.service.js';
import { PasswordChangedMailer } from './password-changed.mailer.js';
import { SentMail } from './sent-mail.entity.js';
import { SentMailsRepository } from './sent-mails.repository.js';

/** Mail (docs/mail.md): the service that sends, its templates and the outbox consumers that mail. */
@Module({
  imports: [TypeOrmModule.forFeature([SentMail]), UsersModule],
  providers: [MailService, SentMailsRepository, PasswordChangedMailer, AccountMailer],
  exports: [MailService],
})
export class MailModule {}
