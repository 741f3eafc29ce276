import type { MigrationInterface } from 'typeorm';
import { CreateCatalogue1795307210463 } from './1795307210463-CreateCatalogue.js';
import { CreateIdentity1795307879190 } from './1795307879190-CreateIdentity.js';

/** Every migration, in order. `npm run migration:generate` writes new ones beside this file. */
export const migrations: (new () => MigrationInterface)[] = [
  CreateCatalogue1795307210463,
  CreateIdentity1795307879190,
];
