import { Global, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import {
  getDataSourceToken,
  InjectDataSource,
  TypeOrmModule,
  type TypeOrmModuleOptions,
} from '@nestjs/typeorm';
import { ClsModule } from 'nestjs-cls';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { isDatabaseUnavailable } from '../common/errors/database-errors.js';
import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { openMigrated } from './migrate.js';
import { PreparedStatements } from './prepared-statements.js';
import { GatheredStatements, TypeOrmTransactions } from './transactions.js';
import { resolveDatabase } from './typeorm-options.js';

const logger = new Logger('Database');
// What TypeOrmModule passes from useFactory to dataSourceFactory.
type ConfigCarrier = TypeOrmModuleOptions & { config: DatabaseConfig };
// The embedded server behind each data source, stopped once the data source is closed.
const embeddedServers = new WeakMap<DataSource, EmbeddedPostgres>();

async function openDataSource(
  cfg: DatabaseConfig,
  entities: DataSourceOptions['entities'],
): Promise<DataSource> {
  const resolved = await resolveDatabase(cfg, entities);
  const { embedded } = resolved;
  try {
    const { dataSource, applied } = await openMigrated(resolved, cfg.migrationsRun);
    if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
    if (embedded) {
      embeddedServers.set(dataSource, embedded);
      logger.log(`Embedded PostgreSQL (PGlite) in ${cfg.dataDir}`);
    }
    return dataSource;
  } catch (error) {
    await embedded?.stop();
    throw startupFailure(error, cfg);
  }
}

/** Names the unreachable database (never its password) so the operator sees what to fix. */
function startupFailure(error: unknown, cfg: DatabaseConfig): unknown {
  if (!isDatabaseUnavailable(error)) return error;
  const { message, code } = error as { message?: string; code?: string };
  const where = cfg.url ? locationOf(cfg.url) : `the embedded database in ${cfg.dataDir}`;
  return new Error(
    `Database unreachable at ${where} (${message || code}); start-up does not retry`,
    { cause: error },
  );
}

function locationOf(url: string): string {
  const { host, pathname } = new URL(url);
  return `${host}${pathname}`;
}

// Global, like the DataSource it wraps: every repository may run prepared statements and
// join the transaction in progress (TransactionHost, from the global ClsModule), and every
// module gather its writes until the commit.
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      // The real options come from resolveDatabase(), shared with the TypeORM CLI: these
      // carry the configuration to dataSourceFactory, with the entities every feature module
      // registered (`TypeOrmModule.forFeature`). A failed start exits at once, without Nest's
      // "Retrying" log (see docs/operations.md).
      inject: [databaseConfig.KEY],
      useFactory: (config: DatabaseConfig): ConfigCarrier => ({
        type: 'postgres',
        autoLoadEntities: true,
        retryAttempts: 0,
        toRetry: () => false,
        config,
      }),
      dataSourceFactory: (options) =>
        openDataSource((options as ConfigCarrier).config, options?.entities),
    }),
    // No middleware: a context starts with each transaction, so reads outside one pay nothing.
    ClsModule.forRoot({
      global: true,
      plugins: [
        new ClsPluginTransactional({
          adapter: new TypeOrmTransactions({ dataSourceToken: getDataSourceToken() }),
        }),
      ],
    }),
  ],
  providers: [
    {
      provide: PreparedStatements,
      inject: [databaseConfig.KEY],
      useFactory: (config: DatabaseConfig) => new PreparedStatements(config.preparedStatements),
    },
    GatheredStatements,
  ],
  exports: [PreparedStatements, GatheredStatements],
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
