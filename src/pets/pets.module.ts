import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { PetHistoryService } from './pet-history.service.js';
import { PetsController } from './pets.controller.js';
import { PetsRepository } from './pets.repository.js';
import { PetsService } from './pets.service.js';

@Module({
  imports: [IdempotencyModule],
  controllers: [PetsController],
  providers: [PetsService, PetHistoryService, PetsRepository],
  exports: [PetsService, PetHistoryService],
})
export class PetsModule {}
