import { loadDotEnv } from './dot-env.js';
import { validateEnv, type EnvironmentVariables } from './env.schema.js';

let validated: { source: string; env: EnvironmentVariables } | undefined;

/**
 * The one reader of `process.env` for configuration: `.env` from the working directory
 * fills in what the environment leaves unset, then the whole is validated. Every config
 * namespace starts here (so the app, the CLI, the TypeORM data source and the seed script do),
 * and so does main.ts.
 * An unchanged environment is validated once: main.ts checks it before creating the app,
 * so that a bad variable is reported on one line, and the app then finds it done.
 */
export function loadEnv(): EnvironmentVariables {
  loadDotEnv();
  const source = JSON.stringify(process.env);
  if (validated?.source !== source) validated = { source, env: validateEnv(process.env) };
  return validated.env;
}
