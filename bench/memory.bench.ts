import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/support/free-port.js';
import { npmScript } from '../test/support/npm-script.js';
import { generousRateLimits } from '../test/support/rate-limits.js';
import { adminClient } from './bench-app.js';
import { ADMIN_PASSWORD, dropDatabase, freshDatabase } from './load.js';
import { seedPets, waitForHttp } from './processes.js';
import { rssDuring } from './rss.js';

/**
 * `npm run bench -- memory [--quick]`: resident memory of the app (VmRSS, with any child
 * processes) in both database modes, each started as its npm script starts it (the same
 * environment prefix and node flags, read from package.json): `start` on the embedded
 * PGlite in a fresh data directory, `start:prod` on the machine's PostgreSQL
 * (BENCH_DATABASE_URL) in a fresh database, both seeded with the same pets. For each: the
 * peak while starting, the RSS once idle, then the peak and the median of the second half
 * of a list load (GET /v1/pets?limit=20 as the admin, 16 connections), sampled every 50 ms.
 */
const QUICK = process.argv.includes('--quick');
const PETS = QUICK ? 20_000 : 100_000;
const SETTLE_SECONDS = 10;
const LOAD_SECONDS = QUICK ? 8 : 20;
const CONNECTIONS = 16;
const SAMPLE_MS = 50;
const DATABASE = 'petstore_bench_rss';

interface Row {
  mode: string;
  'start peak MB': number;
  'idle MB': number;
  'load peak MB': number;
  'load steady MB': number;
  'req/s': number;
  'non-2xx': number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One mode: the app started by `script` with `env` on an already seeded database. */
async function measure(mode: string, script: string, env: Record<string, string>): Promise<Row> {
  const { env: scriptEnv, flags } = await npmScript(script);
  const port = await freePort();
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL;
  delete inherited.NODE_ENV;
  const server = spawn(process.execPath, [...flags, 'dist-bench/src/main.js'], {
    env: {
      ...inherited,
      ...scriptEnv,
      ...env,
      ...generousRateLimits('100000000'),
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_PASSWORD,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stopped = new Promise((resolve) => server.once('exit', resolve));
  const origin = `http://127.0.0.1:${port}`;
  try {
    const starting = await rssDuring(
      server.pid!,
      async () => {
        await waitForHttp(`${origin}/health/live`);
        await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
      },
      SAMPLE_MS,
    );
    const { auth } = await adminClient(`${origin}/v1`);
    let result: autocannon.Result | undefined;
    const loaded = await rssDuring(
      server.pid!,
      async () => {
        result = await autocannon({
          url: `${origin}/v1/pets?limit=20`,
          headers: auth,
          connections: CONNECTIONS,
          duration: LOAD_SECONDS,
        });
      },
      SAMPLE_MS,
    );
    return {
      mode,
      'start peak MB': Math.max(...starting),
      'idle MB': starting.at(-1)!,
      'load peak MB': Math.max(...loaded),
      'load steady MB': median(loaded.slice(Math.floor(loaded.length / 2))),
      'req/s': Math.round(result!.requests.average),
      'non-2xx': result!.non2xx + result!.errors + result!.timeouts,
    };
  } finally {
    server.kill('SIGTERM');
    await stopped;
  }
}

export async function run(): Promise<void> {
  const rows: Row[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'petstore-bench-rss-'));
  try {
    console.log(`bench: seeding ${PETS} pets into the embedded database in ${dataDir}`);
    await seedPets({ DATA_DIR: dataDir }, PETS);
    rows.push(await measure('embedded PGlite (npm start)', 'start', { DATA_DIR: dataDir }));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  const prodDir = await mkdtemp(join(tmpdir(), 'petstore-bench-rss-'));
  try {
    const url = await freshDatabase(DATABASE);
    console.log(`bench: seeding ${PETS} pets into ${DATABASE}`);
    await seedPets({ DATABASE_URL: url }, PETS);
    rows.push(
      await measure('PostgreSQL (npm run start:prod)', 'start:prod', {
        NODE_ENV: 'production',
        DATABASE_URL: url,
        DATA_DIR: prodDir,
        JWT_SECRET: randomBytes(32).toString('base64url'),
        MFA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        // The load signs the admin in with a password, without a second factor.
        MFA_REQUIRED_ROLES: '',
      }),
    );
  } finally {
    await dropDatabase(DATABASE);
    await rm(prodDir, { recursive: true, force: true });
  }
  console.log(
    `memory: ${PETS} pets; idle = RSS ${SETTLE_SECONDS} s after the first answer; ` +
      `load = GET /v1/pets?limit=20, ${CONNECTIONS} connections, ${LOAD_SECONDS} s`,
  );
  console.table(rows);
}
