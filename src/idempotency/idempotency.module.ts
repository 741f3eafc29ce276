import { Global, Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';

/**
 * Global: the interceptor of `@Idempotent()` is instantiated in the module of each
 * controller that uses it (pets, categories, users, auth, media), and needs this service.
 */
@Global()
@Module({
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
