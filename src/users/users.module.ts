import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { PasswordService } from './password.service.js';
import { SignUpExpiryService } from './sign-up-expiry.service.js';
import { UserEventPublisher } from './user-event-publisher.js';
import { User } from './user.entity.js';
import { UserLookupService } from './user-lookup.service.js';
import { UsersController } from './users.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

/**
 * The user row and every change an admin makes to it (users.controller.ts), the password
 * hashing, the sign-ups' expiry, and the one read service auth uses. The account flows by
 * mailed link and the mails live beside it in AccountsModule (accounts/), which the app
 * loads and the CLI does not; they change users through UsersService, exported for them.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([User]),
    IdempotencyModule,
    // RateLimitModule for the login lockout, which a current-password check counts toward.
    RateLimitModule,
  ],
  controllers: [UsersController],
  providers: [
    UsersService,
    UsersRepository,
    PasswordService,
    SignUpExpiryService,
    UserLookupService,
    UserEventPublisher,
  ],
  // Auth and adoptions read users through UserLookupService, and change none; the account
  // flows change them through UsersService.
  exports: [UserLookupService, UsersService, PasswordService],
})
export class UsersModule {}
