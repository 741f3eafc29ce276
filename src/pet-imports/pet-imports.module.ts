import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CategoriesModule } from '../categories/categories.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { MediaModule } from '../media/media.module.js';
import { PetsModule } from '../pets/pets.module.js';
import { PetImport } from './pet-import.entity.js';
import { PetImportsController } from './pet-imports.controller.js';
import { PetImportsRepository } from './pet-imports.repository.js';
import { PetImportsService } from './pet-imports.service.js';

/** Catalogue imports: pets written through PetsService, the form parsed as media's uploads. */
@Module({
  imports: [
    TypeOrmModule.forFeature([PetImport]),
    PetsModule,
    CategoriesModule,
    MediaModule,
    IdempotencyModule,
  ],
  controllers: [PetImportsController],
  providers: [PetImportsService, PetImportsRepository],
})
export class PetImportsModule {}
