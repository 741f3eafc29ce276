import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const adoptionsConfig = registerAs('adoptions', (env: EnvironmentVariables = loadEnv()) => ({
  /** Open adoptions (requested or approved) one adopter may have at once. */
  openPerAdopter: env.ADOPTIONS_OPEN_PER_ADOPTER,
  /** How long a request, or an approval, holds the pet before the adoption expires. */
  holdMs: env.ADOPTION_HOLD_MINUTES * 60_000,
}));

export type AdoptionsConfig = ConfigType<typeof adoptionsConfig>;
