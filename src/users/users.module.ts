import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { User } from './user.entity.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { PasswordService } from './password.service.js';
import { SignUpExpiryService } from './sign-up-expiry.service.js';
import { UsersController } from './users.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

@Module({
  // RateLimitModule for the login lockout, which a current-password check counts toward.
  imports: [TypeOrmModule.forFeature([User]), IdempotencyModule, RateLimitModule],
  controllers: [UsersController],
  providers: [UsersService, UsersRepository, PasswordService, SignUpExpiryService],
  exports: [UsersService, PasswordService],
})
export class UsersModule {}
