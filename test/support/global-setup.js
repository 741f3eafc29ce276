import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { buildIfStale } from '../../scripts/build-if-stale.js';

// Migrates an empty PGlite data directory (DATA_DIR) with the built service, as the
// Kubernetes migration Job does.
const MIGRATE = `
  import { migrate } from './dist/database/migrate.js';
  import { resolveDatabase } from './dist/database/typeorm-options.js';
  const { options, embedded, migrationLockTimeoutMs } = await resolveDatabase({
    dataDir: process.env.DATA_DIR, migrationsRun: true, poolMax: 1, preparedStatements: true,
    connectTimeoutMs: 30000, statementTimeoutMs: 30000, idleTimeoutMs: 30000,
    migrationLockTimeoutMs: 30000,
  });
  try {
    await migrate(options, migrationLockTimeoutMs);
  } finally {
    await embedded?.stop();
  }
`;

export default function globalSetup() {
  // Names this run for the workers, which inherit the environment (see test-database.ts).
  // Every project of one Jest process calls this: they share one run, and one template.
  if (process.env.PETSTORE_TEST_RUN_PID !== String(process.pid)) {
    process.env.PETSTORE_TEST_RUN = randomBytes(4).toString('hex');
    process.env.PETSTORE_TEST_RUN_PID = String(process.pid);
  }
  // Some e2e tests run the built service (dist/main.js) as a child process, and the console
  // tests load the built console.
  buildIfStale();
  if (!process.env.DATABASE_URL) process.env.PETSTORE_TEST_TEMPLATE = migratedTemplate();
}

/**
 * A freshly migrated PGlite data directory, made once per run before any worker starts,
 * outside every test's timeout, and copied for each test database: copying takes a
 * fraction of PGlite's initdb and the migrations. Removed by global teardown.
 */
function migratedTemplate() {
  // Named after the run, so that a run's teardown removes its own template and never that
  // of another run on the same machine. Not 'petstore-template-': teardowns of earlier
  // versions remove every directory so named.
  const prefix = join(tmpdir(), `petstore-pglite-template-${process.env.PETSTORE_TEST_RUN}-`);
  const template = `${prefix}migrated`;
  const pgdata = join(template, 'pgdata');
  if (existsSync(pgdata)) return pgdata;
  const building = `${prefix}building`;
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', MIGRATE], {
      env: { ...process.env, DATA_DIR: building },
      stdio: 'inherit',
    });
    renameSync(building, template);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return pgdata;
}
