import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { MailModule } from '../mail/mail.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { AccountToken } from './accounts/account-token.entity.js';
import { AccountsController } from './accounts/accounts.controller.js';
import { AccountsRepository } from './accounts/accounts.repository.js';
import { AccountsService } from './accounts/accounts.service.js';
import { AnsweredAsk } from './accounts/answered-ask.entity.js';
import { CredentialChange } from './accounts/credential-change.entity.js';
import { MailQuota } from './accounts/mail-quota.entity.js';
import { AccountMailer } from './mails/account.mailer.js';
import { PasswordChangedMailer } from './mails/password-changed.mailer.js';
import { AdminBootstrapService } from './admin-bootstrap.service.js';
import { PasswordService } from './password.service.js';
import { SignUpExpiryService } from './sign-up-expiry.service.js';
import { User } from './user.entity.js';
import { UserLookupService } from './user-lookup.service.js';
import { UsersController } from './users.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

/**
 * The user row and every change to it: the admin's routes (users.controller.ts) and the
 * account flows by mailed link (accounts/: sign-up, verification, invitations, email
 * change, password reset), and the mails that tell the account's owner (mails/), which
 * MailModule sends.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([User, AccountToken, MailQuota, AnsweredAsk, CredentialChange]),
    IdempotencyModule,
    MailModule,
    // RateLimitModule for the login lockout, which a current-password check counts toward.
    RateLimitModule,
  ],
  controllers: [UsersController, AccountsController],
  providers: [
    UsersService,
    UsersRepository,
    PasswordService,
    SignUpExpiryService,
    AdminBootstrapService,
    UserLookupService,
    AccountsService,
    AccountsRepository,
    AccountMailer,
    PasswordChangedMailer,
  ],
  // Auth reads users through this one, and changes none.
  exports: [UserLookupService],
})
export class UsersModule {}
