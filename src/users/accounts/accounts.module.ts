import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '../../mail/mail.module.js';
import { AccountMailer } from '../mails/account.mailer.js';
import { PasswordChangedMailer } from '../mails/password-changed.mailer.js';
import { UserMails } from '../mails/user-mails.js';
import { UsersModule } from '../users.module.js';
import { AccountToken } from './account-token.entity.js';
import { AccountsController } from './accounts.controller.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import { AdminBootstrapService } from './admin-bootstrap.service.js';
import { AnsweredAsk } from './answered-ask.entity.js';
import { CredentialChange } from './credential-change.entity.js';
import { MailQuota } from './mail-quota.entity.js';

/**
 * What the service does to accounts on its own, beside the admin's changes: the flows by
 * mailed link (sign-up, verification, invitations, email change, password reset), the mails
 * that tell an account's owner (../mails/, rendered here and queued to the mail module's
 * queue), and the first admin at start-up. Only the app loads it: the CLI (create-admin,
 * media-gc) starts none of them.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([AccountToken, MailQuota, AnsweredAsk, CredentialChange]),
    UsersModule,
    // Where an account's mail goes, which UserMails registers with it.
    MailModule,
  ],
  controllers: [AccountsController],
  providers: [
    AccountsService,
    AccountsRepository,
    AccountMailer,
    PasswordChangedMailer,
    UserMails,
    AdminBootstrapService,
  ],
})
export class AccountsModule {}
