import type { Provider, Type } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type MigrationInterface } from 'typeorm';
import { AppConfigModule } from '../../src/config/config.module.js';
import { DatabaseModule } from '../../src/database/database.module.js';
import type { TxHost } from '../../src/database/transactions.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * Repositories on a database of their own, with nothing else of the app around them: the
 * real DatabaseModule (the DataSource, the transaction host, PreparedStatements) and its
 * configuration, plus the providers under test.
 */
export interface RepositoryHarness {
  get<T>(type: Type<T>): T;
  /**
   * Runs one statement, in the transaction of `transaction()` when called inside it, and
   * returns its rows (a SELECT's, or those of a RETURNING clause).
   */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `work` in a transaction of the app's host: the repositories it calls join it. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Runs a migration up or down on a runner of its own, as the migration run would. */
  migrate(migration: MigrationInterface, direction: 'up' | 'down'): Promise<void>;
  /** The database, for a session of a test's own (PostgreSQL only: PGlite serves one). */
  database: TestDatabase;
  /** Closes the module, then drops the database. */
  close(): Promise<void>;
}

export interface RepositoryHarnessOptions {
  /**
   * The entities the providers read through TypeORM's own API (`getRepository`, the query
   * builder); in the app, their module registers them with `TypeOrmModule.forFeature`.
   */
  entities?: Type<unknown>[];
}

/**
 * Boots `providers` on a fresh copy of the migrated database: PGlite by default, a new
 * database on the server DATABASE_URL names otherwise (see test-database.ts).
 */
export async function createRepositoryHarness(
  providers: Provider[],
  { entities = [] }: RepositoryHarnessOptions = {},
): Promise<RepositoryHarness> {
  const database = await createTestDatabase();
  let moduleRef: TestingModule;
  try {
    // The configuration namespaces read process.env while the module compiles.
    moduleRef = await withEnvironment({ NODE_ENV: 'test', ...database.env }, async () => {
      const compiled = await Test.createTestingModule({
        imports: [AppConfigModule, DatabaseModule, TypeOrmModule.forFeature(entities)],
        providers,
      }).compile();
      return compiled.init();
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const txHost = moduleRef.get<TxHost>(TransactionHost);

  return {
    get: (type) => moduleRef.get(type),
    query: async <Row>(sql: string, params: unknown[] = []) => {
      const manager = txHost.tx;
      // A runner's structured result gives the rows whatever the command: TypeORM's plain
      // query() answers [rows, count] for an UPDATE or a DELETE.
      const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
      try {
        const { records } = await runner.query(sql, params, true);
        return records as Row[];
      } finally {
        if (runner !== manager.queryRunner) await runner.release();
      }
    },
    transaction: (work) => txHost.withTransaction(work),
    migrate: async (migration, direction) => {
      const runner = moduleRef.get(DataSource).createQueryRunner();
      try {
        await migration[direction](runner);
      } finally {
        await runner.release();
      }
    },
    database,
    close: async () => {
      try {
        await moduleRef.close();
      } finally {
        await database.drop();
      }
    },
  };
}

async function withEnvironment<T>(
  overrides: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(overrides).map((k) => [k, process.env[k]]));
  Object.assign(process.env, overrides);
  try {
    return await work();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
