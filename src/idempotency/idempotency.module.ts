import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RouteMetadataModule } from '../common/metadata/route-metadata.js';
import { IdempotencyKey } from './idempotency-key.entity.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';

/**
 * Imported by every module with a controller that uses `@Idempotent()`: its interceptor is
 * instantiated in that module and needs this service and RouteMetadata (one instance each
 * for the whole app).
 */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey]), RouteMetadataModule],
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService, RouteMetadataModule],
})
export class IdempotencyModule {}
