import { DataSource, MigrationExecutor } from 'typeorm';

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
