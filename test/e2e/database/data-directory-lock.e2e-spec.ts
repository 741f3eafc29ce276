import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { DEMO_PETS } from '../../../src/cli/demo-catalogue.js';
import { AppProcess } from '../../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const DIST = resolve(import.meta.dirname, '../../../dist');

interface Run {
  code: number | null;
  output: string;
}

/** A built script (`npm run seed` and the like, after their build step) on a data directory. */
function runBuilt(args: string[], dataDir: string): Promise<Run> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((done) => child.once('close', (code) => done({ code, output })));
}

const seed = (dataDir: string) => runBuilt([join(DIST, 'cli/seed.js')], dataDir);

/** The PID of a process that has ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('close', done));
  return child.pid!;
}

// PGlite's data directory; on a PostgreSQL server there is none to share.
const embeddedOnly = process.env.DATABASE_URL ? describe.skip : describe;

embeddedOnly('The data directory lock (e2e, embedded database)', () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeEach(async () => {
    database = await createTestDatabase();
    dataDir = database.env.DATA_DIR;
  });
  afterEach(async () => {
    await database.drop();
  });

  it(
    'should refuse the seed while the service runs on the directory, and seed it once the service has stopped',
    async () => {
      const service = await AppProcess.start({ ...database.env, JWT_SECRET: database.jwtSecret });
      try {
        const refused = await seed(dataDir);
        expect(refused.code).toBe(1);
        expect(refused.output).toContain(
          `The data directory ${dataDir} is in use by process ${service.pid}: stop the service first, or run this with another DATA_DIR, or run both on a PostgreSQL server (DATABASE_URL).`,
        );
        expect(refused.output).not.toContain('seed: done');

        const cli = await runBuilt([join(DIST, 'cli/cli.js'), 'media-gc'], dataDir);
        expect(cli.code).toBe(1);
        expect(cli.output).toContain(`is in use by process ${service.pid}`);

        // The service's own data is untouched: still no pets.
        const pets = await service.fetch('/v1/pets');
        expect(((await pets.json()) as { pets: unknown[] }).pets).toEqual([]);
      } finally {
        expect(await service.stop()).toBe(0);
      }

      const seeded = await seed(dataDir);
      expect(seeded).toMatchObject({ code: 0, output: expect.stringContaining('seed: done') });

      const restarted = await AppProcess.start({ ...database.env, JWT_SECRET: database.jwtSecret });
      try {
        const pets = await restarted.fetch('/v1/pets');
        const body = (await pets.json()) as { pagination: { total: number } };
        expect(body.pagination.total).toBe(DEMO_PETS);
      } finally {
        expect(await restarted.stop()).toBe(0);
      }
    },
    // Two starts of the built service and two seeds, the second of the whole demo shop.
    600_000,
  );

  it('should take over a lock left by a process that is gone, and remove it on exit', async () => {
    const lock = join(dataDir, 'pgdata.lock');
    await writeFile(lock, `${await endedPid()}\n`);

    // The shortest command that opens the directory: the lock is the same for every one.
    const gc = await runBuilt([join(DIST, 'cli/cli.js'), 'media-gc'], dataDir);

    expect(gc).toMatchObject({ code: 0, output: expect.stringContaining('Done: 0 objects') });
    expect(existsSync(lock)).toBe(false);
  });
});
