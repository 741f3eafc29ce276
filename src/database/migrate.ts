import { DataSource, MigrationExecutor, type DataSourceOptions } from 'typeorm';
import { withoutStatementTimeouts, type ResolvedDatabase } from './typeorm-options.js';

// An arbitrary, fixed key: every instance of this service takes the same lock.
const MIGRATION_LOCK_KEY = 727_274_001;

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so instances
 * starting together run them once, one after another. The lock and the migrations share
 * one connection, which matters for the single-connection embedded database.
 */
export async function runMigrationsWithLock(dataSource: DataSource): Promise<string[]> {
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.connect();
  try {
    await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const executor = new MigrationExecutor(dataSource, queryRunner);
      executor.transaction = 'each';
      const applied = await executor.executePendingMigrations();
      return applied.map((m) => m.name);
    } finally {
      await queryRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await queryRunner.release();
  }
}

/**
 * Runs the pending migrations on a connection of their own without the statement
 * timeouts that protect requests: a schema change may rightly run for minutes, and so
 * may the wait for another instance's lock.
 */
export async function migrate(options: DataSourceOptions): Promise<string[]> {
  const dataSource = await new DataSource(withoutStatementTimeouts(options)).initialize();
  try {
    return await runMigrationsWithLock(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Initializes a data source, first applying pending migrations when `runMigrations`. The
 * embedded database takes one connection at a time and has no timeouts to lift, so it
 * migrates on the data source's own connection.
 */
export async function openMigrated(
  { options, embedded }: ResolvedDatabase,
  runMigrations: boolean,
): Promise<{ dataSource: DataSource; applied: string[] }> {
  const applied = runMigrations && !embedded ? await migrate(options) : [];
  const dataSource = await new DataSource(options).initialize();
  try {
    if (runMigrations && embedded) applied.push(...(await runMigrationsWithLock(dataSource)));
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return { dataSource, applied };
}
