import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const petImportsConfig = registerAs(
  'petImports',
  (env: EnvironmentVariables = loadEnv()) => ({
    /** Rows of an import applied per transaction, with its cursor. */
    batchRows: env.PET_IMPORT_BATCH_ROWS,
  }),
);

export type PetImportsConfig = ConfigType<typeof petImportsConfig>;
