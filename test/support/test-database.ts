import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/database/migrate.js';
import { resolveDatabase } from '../../src/database/typeorm-options.js';

/**
 * A database of the test's own: a fresh PGlite data directory by default, or, when
 * DATABASE_URL names a PostgreSQL server, a new database created on it. Either is
 * removed by `drop()`, so no run depends on what an earlier one left.
 */
export interface TestDatabase {
  env: Record<string, string>;
  /** Shared by every app on this database, as one deployment's instances share it. */
  jwtSecret: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), 'petstore-test-'));
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    await cp(await migratedTemplate(), join(dataDir, 'pgdata'), { recursive: true });
    return { env: { DATA_DIR: dataDir }, jwtSecret: newJwtSecret(), drop: removeDataDir };
  }
  const name = `petstore_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    jwtSecret: newJwtSecret(),
    drop: async () => {
      await withAdmin(serverUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      );
      await removeDataDir();
    },
  };
}

/**
 * A freshly migrated PGlite data directory, made once per Jest worker and copied for
 * each test app: copying takes a fraction of PGlite's initdb. Removed by global teardown.
 */
async function migratedTemplate(): Promise<string> {
  // Named after the test run too (see global-setup.js), so that a run's teardown removes
  // its own templates and never those of another run on the same machine.
  const run = process.env.PETSTORE_TEST_RUN ?? 'local';
  const template = join(tmpdir(), `${TEMPLATE_PREFIX}${run}-${process.pid}`);
  const pgdata = join(template, 'pgdata');
  if (existsSync(pgdata)) return pgdata;
  // A name of its own: a timed-out test may still be building another one in this worker.
  const building = `${template}.building-${randomBytes(4).toString('hex')}`;
  const { options, embedded, migrationLockTimeoutMs } = await resolveDatabase({
    dataDir: building,
    migrationsRun: true,
    poolMax: 1,
    preparedStatements: true,
    url: undefined,
    connectTimeoutMs: 30_000,
    statementTimeoutMs: 30_000,
    idleTimeoutMs: 30_000,
    migrationLockTimeoutMs: 30_000,
  });
  try {
    await migrate(options, migrationLockTimeoutMs);
  } finally {
    await embedded?.stop();
  }
  if (existsSync(pgdata)) {
    await rm(building, { recursive: true, force: true });
  } else {
    await rename(building, template);
  }
  return pgdata;
}

const newJwtSecret = () => randomBytes(32).toString('base64url');

// Not 'petstore-template-': teardowns of earlier versions remove every directory so named.
export const TEMPLATE_PREFIX = 'petstore-pglite-template-';

async function withAdmin(serverUrl: string, work: (client: pg.Client) => Promise<unknown>) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
