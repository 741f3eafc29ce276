import { Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { runMigrationsWithLock } from './migrate.js';
import { resolveDatabase } from './typeorm-options.js';

const logger = new Logger('Database');
// The embedded server behind each data source, stopped once the data source is closed.
const embeddedServers = new WeakMap<DataSource, EmbeddedPostgres>();

async function openDataSource(cfg: DatabaseConfig): Promise<DataSource> {
  const { options, embedded } = await resolveDatabase(cfg);
  const dataSource = new DataSource(options);
  try {
    await dataSource.initialize();
    if (cfg.migrationsRun) {
      const applied = await runMigrationsWithLock(dataSource);
      if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
    }
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
    throw error;
  }
  if (embedded) {
    embeddedServers.set(dataSource, embedded);
    logger.log(`Embedded PostgreSQL (PGlite) in ${cfg.dataDir}`);
  }
  return dataSource;
}

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      // The real options come from resolveDatabase(), shared with the TypeORM CLI;
      // a failed start exits instead of retrying (see README, "Operating").
      useFactory: () => ({ type: 'postgres', retryAttempts: 0 }),
      dataSourceFactory: () => openDataSource(databaseConfig()),
    }),
  ],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // Whichever of this hook and TypeORM's own runs first, the pool closes before PGlite.
  async onApplicationShutdown(): Promise<void> {
    const embedded = embeddedServers.get(this.dataSource);
    if (!embedded) return;
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await embedded.stop();
  }
}
