import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JwtKeyModule } from '../auth/jwt-key.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { PetsModule } from '../pets/pets.module.js';
import { UsersModule } from '../users/users.module.js';
import { Adoption } from './adoption.entity.js';
import { AdoptionMails } from './adoption-mails.js';
import { AdoptionStatsService } from './adoption-stats.service.js';
import { AdoptionsController } from './adoptions.controller.js';
import { AdoptionsRepository } from './adoptions.repository.js';
import { AdoptionsService } from './adoptions.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([Adoption]),
    IdempotencyModule,
    JwtKeyModule,
    PetsModule,
    UsersModule,
  ],
  controllers: [AdoptionsController],
  providers: [AdoptionsService, AdoptionsRepository, AdoptionMails, AdoptionStatsService],
  exports: [AdoptionsService, AdoptionStatsService],
})
export class AdoptionsModule {}
