import { Logger } from '@nestjs/common';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config.js';
import { EmbeddedPostgres } from './embedded-postgres.js';
import { loadMigrations } from './migration-files.js';
import { PgClient } from './pg-client.js';

export interface ResolvedDatabase {
  options: DataSourceOptions;
  /** Set when no DATABASE_URL was given and an embedded PGlite serves the data directory. */
  embedded?: EmbeddedPostgres;
  /** Longest wait for the migration lock (MIGRATION_LOCK_TIMEOUT_MS). */
  migrationLockTimeoutMs: number;
}

// The client gives up this long after the server should have cancelled a statement: a
// stopped or frozen server cancels nothing, and a request must not wait for it forever.
const QUERY_TIMEOUT_MARGIN_MS = 1_000;

const logger = new Logger('Database');

/**
 * The one options builder: used by the app, the TypeORM CLI and the seed script. `entities`
 * are the app's, registered by each feature module (`TypeOrmModule.forFeature`), or a glob
 * for the TypeORM CLI; migrations are every file in `migrations/`.
 */
export async function resolveDatabase(
  cfg: DatabaseConfig,
  entities: DataSourceOptions['entities'] = [],
): Promise<ResolvedDatabase> {
  const migrations = await loadMigrations();
  const embedded = cfg.url ? undefined : await EmbeddedPostgres.start(cfg.dataDir);
  const options: DataSourceOptions = {
    type: 'postgres',
    url: cfg.url ?? embedded!.url,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    // int8 columns and COUNT(*) come back as JS numbers, not strings.
    parseInt8: true,
    applicationName: 'petstore',
    // An idle connection that the server drops (restart, failover) is discarded by the
    // pool; the next request opens a new one, so the service recovers on its own.
    poolErrorHandler: (error: Error) => logger.warn(`Pooled connection lost: ${error.message}`),
    // Options of pg's Pool and Client. PGlite runs each statement to its end on this
    // process's thread, so the embedded database can have no statement timeouts.
    extra: {
      Client: PgClient,
      max: embedded ? 1 : cfg.poolMax,
      connectionTimeoutMillis: cfg.connectTimeoutMs,
      idleTimeoutMillis: cfg.idleTimeoutMs,
      keepAlive: true,
      ...(embedded
        ? {
            // The embedded database keeps one session behind every connection the pool
            // opens, named statements included: a new connection starts without the old
            // one's, or preparing them again fails ("already exists").
            onConnect: (client: { query(sql: string): Promise<unknown> }) =>
              client.query('DEALLOCATE ALL'),
          }
        : {
            statement_timeout: cfg.statementTimeoutMs,
            query_timeout: cfg.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
          }),
    },
  };
  return { options, embedded, migrationLockTimeoutMs: cfg.migrationLockTimeoutMs };
}

/**
 * The same database without statement and query timeouts, for migrations: a schema
 * change may rightly run for minutes, and so may the wait for another instance's lock.
 */
export function withoutStatementTimeouts(options: DataSourceOptions): DataSourceOptions {
  const extra: Record<string, unknown> = { ...(options.extra as object), max: 1 };
  delete extra.statement_timeout;
  delete extra.query_timeout;
  return { ...options, extra };
}
