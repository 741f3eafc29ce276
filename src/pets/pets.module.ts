import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Pet } from './pet.entity.js';
import { PetTag } from './pet-tag.entity.js';
import { Tag } from './tag.entity.js';
import { PetEventRecord } from './pet-event.entity.js';
import { PetCount } from './pet-count.entity.js';
import { PetDocument } from './pet-document.entity.js';
import { SearchWord } from './search-word.entity.js';
import { TagCount } from './tag-count.entity.js';
import { JwtKeyModule } from '../auth/jwt-key.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { PetEventsRepository } from './pet-events.repository.js';
import { PetHistoryService } from './pet-history.service.js';
import { PetHoldsService } from './pet-holds.service.js';
import { PetsController } from './pets.controller.js';
import { PetsRepository } from './pets.repository.js';
import { PetsService } from './pets.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      Pet,
      Tag,
      PetTag,
      PetEventRecord,
      PetCount,
      TagCount,
      PetDocument,
      SearchWord,
    ]),
    IdempotencyModule,
    JwtKeyModule,
  ],
  controllers: [PetsController],
  providers: [PetsService, PetHistoryService, PetHoldsService, PetsRepository, PetEventsRepository],
  exports: [PetsService, PetHistoryService, PetHoldsService],
})
export class PetsModule {}
