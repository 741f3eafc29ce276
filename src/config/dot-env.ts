import { existsSync } from 'node:fs';
import { loadEnvFile } from 'node:process';

const ENV_FILE = '.env';

/**
 * `.env` from the working directory fills in what the environment leaves unset; not under
 * tests, whose variables a developer's `.env` must not change. Its own module, free of the
 * schema, so that the tracing preload reads the same file at no cost.
 */
export function loadDotEnv(): void {
  if (process.env.NODE_ENV !== 'test' && existsSync(ENV_FILE)) loadEnvFile(ENV_FILE);
}
