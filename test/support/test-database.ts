import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

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
    await cp(migratedTemplate(), join(dataDir, 'pgdata'), { recursive: true });
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

// Made by the global setup (global-setup.js), once per run.
function migratedTemplate(): string {
  const template = process.env.PETSTORE_TEST_TEMPLATE;
  if (!template) throw new Error('No PGlite template: test/support/global-setup.js makes it');
  return template;
}

const newJwtSecret = () => randomBytes(32).toString('base64url');

async function withAdmin(serverUrl: string, work: (client: pg.Client) => Promise<unknown>) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
