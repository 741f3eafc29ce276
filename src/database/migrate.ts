import { DataSource, MigrationExecutor, type DataSourceOptions, type QueryRunner } from 'typeorm';
import { withoutStatementTimeouts, type ResolvedDatabase } from './typeorm-options.js';

// An arbitrary, fixed key: every instance of this service takes the same lock.
export const MIGRATION_LOCK_KEY = 727_274_001;
// SQLSTATE of a lock wait cut short by lock_timeout.
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so instances
 * starting together run them once, one after another. The lock and the migrations share
 * one connection, which matters for the single-connection embedded database. The wait for
 * the lock ends after `lockTimeoutMs`: a session that holds it and never lets go (a hung
 * instance, a forgotten psql) must fail start-up clearly rather than hang it.
 */
export async function runMigrationsWithLock(
  dataSource: DataSource,
  lockTimeoutMs: number,
): Promise<string[]> {
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.connect();
  try {
    await acquireMigrationLock(queryRunner, lockTimeoutMs);
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
export async function migrate(
  options: DataSourceOptions,
  lockTimeoutMs: number,
): Promise<string[]> {
  const dataSource = await new DataSource(withoutStatementTimeouts(options)).initialize();
  try {
    return await runMigrationsWithLock(dataSource, lockTimeoutMs);
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
  { options, embedded, migrationLockTimeoutMs }: ResolvedDatabase,
  runMigrations: boolean,
): Promise<{ dataSource: DataSource; applied: string[] }> {
  const applied = runMigrations && !embedded ? await migrate(options, migrationLockTimeoutMs) : [];
  const dataSource = await new DataSource(options).initialize();
  try {
    if (runMigrations && embedded) {
      applied.push(...(await runMigrationsWithLock(dataSource, migrationLockTimeoutMs)));
    }
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return { dataSource, applied };
}

/**
 * lock_timeout bounds the wait for the advisory lock, and only that wait: it is reset
 * before the migrations run, whose own lock waits stay unbounded.
 */
async function acquireMigrationLock(queryRunner: QueryRunner, timeoutMs: number): Promise<void> {
  await queryRunner.query(`SELECT set_config('lock_timeout', $1, false)`, [`${timeoutMs}ms`]);
  try {
    await queryRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  } catch (error) {
    const code = (error as { driverError?: { code?: string } }).driverError?.code;
    if (code !== LOCK_NOT_AVAILABLE) throw error;
    throw new Error(
      `Migration lock not acquired within MIGRATION_LOCK_TIMEOUT_MS (${timeoutMs} ms): another session holds PostgreSQL advisory lock ${MIGRATION_LOCK_KEY} (an instance still migrating, or a stuck one; see pg_locks)`,
      { cause: error },
    );
  } finally {
    await queryRunner.query('RESET lock_timeout');
  }
}
