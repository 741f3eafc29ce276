import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const databaseConfig = registerAs('database', (env: EnvironmentVariables = loadEnv()) => ({
  url: env.DATABASE_URL,
  dataDir: env.DATA_DIR,
  migrationsRun: env.DATABASE_MIGRATIONS_RUN,
  poolMax: env.DATABASE_POOL_MAX,
  preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
  connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
  statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
  searchStatementTimeoutMs: env.SEARCH_STATEMENT_TIMEOUT_MS,
  idleTimeoutMs: env.DATABASE_IDLE_TIMEOUT_MS,
  migrationLockTimeoutMs: env.MIGRATION_LOCK_TIMEOUT_MS,
}));

export type DatabaseConfig = ConfigType<typeof databaseConfig>;
