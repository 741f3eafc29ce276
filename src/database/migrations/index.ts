import type { MigrationInterface } from 'typeorm';
import { CreateCatalogue1795307210463 } from './1795307210463-CreateCatalogue.js';
import { CreatePetImages1795307848142 } from './1795307848142-CreatePetImages.js';

/** Every migration, in order. `npm run migration:generate` writes new ones beside this file. */
export const migrations: (new () => MigrationInterface)[] = [
  CreateCatalogue1795307210463,
  CreatePetImages1795307848142,
];
