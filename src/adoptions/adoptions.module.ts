import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JwtKeyModule } from '../auth/jwt-key.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { PetsModule } from '../pets/pets.module.js';
import { Adoption } from './adoption.entity.js';
import { AdoptionMails } from './adoption-mails.js';
import { AdoptionsController } from './adoptions.controller.js';
import { AdoptionsRepository } from './adoptions.repository.js';
import { AdoptionsService } from './adoptions.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Adoption]), IdempotencyModule, JwtKeyModule, PetsModule],
  controllers: [AdoptionsController],
  providers: [AdoptionsService, AdoptionsRepository, AdoptionMails],
  exports: [AdoptionsService],
})
export class AdoptionsModule {}
