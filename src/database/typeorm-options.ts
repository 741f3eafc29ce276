import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config.js';
import { EmbeddedPostgres } from './embedded-postgres.js';
import { entities } from './entities.js';
import { migrations } from './migrations/index.js';

export interface ResolvedDatabase {
  options: DataSourceOptions;
  /** Set when no DATABASE_URL was given and an embedded PGlite serves the data directory. */
  embedded?: EmbeddedPostgres;
}

/** The one options builder: used by the app, the TypeORM CLI and the seed script. */
export async function resolveDatabase(cfg: DatabaseConfig): Promise<ResolvedDatabase> {
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
    extra: { max: embedded ? 1 : cfg.poolMax },
  };
  return { options, embedded };
}
