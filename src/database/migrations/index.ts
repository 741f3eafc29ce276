import type { MigrationInterface } from 'typeorm';
import { CreateCatalogue1795307210463 } from './1795307210463-CreateCatalogue.js';
import { CreatePetImages1795307848142 } from './1795307848142-CreatePetImages.js';
import { CreateIdentity1795307879190 } from './1795307879190-CreateIdentity.js';
import { AddPetCounts1795309280190 } from './1795309280190-AddPetCounts.js';
import { AddTokensValidAfter1795434961251 } from './1795434961251-AddTokensValidAfter.js';
import { AddRowVersions1795488516143 } from './1795488516143-AddRowVersions.js';
import { CreateIdempotencyKeys1795488928216 } from './1795488928216-CreateIdempotencyKeys.js';
import { CreateWebhooks1795550000000 } from './1795550000000-CreateWebhooks.js';
import { CreatePetEvents1795600000000 } from './1795600000000-CreatePetEvents.js';

/** Every migration, in order. `npm run migration:generate` writes new ones beside this file. */
export const migrations: (new () => MigrationInterface)[] = [
  CreateCatalogue1795307210463,
  CreatePetImages1795307848142,
  CreateIdentity1795307879190,
  AddPetCounts1795309280190,
  AddTokensValidAfter1795434961251,
  AddRowVersions1795488516143,
  CreateIdempotencyKeys1795488928216,
  CreateWebhooks1795550000000,
  CreatePetEvents1795600000000,
];
