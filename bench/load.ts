import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { basename, join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { seedPets } from './processes.js';

/** What the benchmarks that load the compiled app from another process share. */
export const SERVER_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const ADMIN_PASSWORD = 'bench admin password';
const LOG_DIR = 'bench/results/logs';

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  /** Bytes per response on the wire, headers included. */
  bytes: number;
}

export type RequestSetup = (request: {
  path?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}) => void;

export interface LoadOptions {
  auth?: string[];
  setup?: RequestSetup;
  method?: string;
  body?: string;
  connections: number;
  seconds: number;
  /** Requests per second over all connections; as many as the server answers when unset. */
  rate?: number;
}

export const databaseUrl = (database: string) => {
  const url = new URL(SERVER_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

/**
 * A compiled script of dist-bench in a child process; `nodeOptions` go before the script.
 * Its log (stdout) goes to a file of bench/results/, named when it exits on its own: a
 * server that fails to start would otherwise only show as a refused connection.
 */
export function start(
  script: string,
  env: Record<string, string>,
  nodeOptions: string[] = [],
): ChildProcess {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = join(LOG_DIR, `${basename(script, '.js')}-${env.PORT ?? 'default'}.log`);
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeOptions, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', log, 'inherit'],
  });
  closeSync(log);
  child.on('exit', (code, signal) => {
    // 0 or SIGTERM: stopped by the bench.
    if (code !== 0 && signal !== 'SIGTERM') {
      console.error(`bench: ${script} exited with ${code ?? signal}; its log: ${logFile}`);
    }
  });
  return child;
}

/** `database` dropped if it exists and created empty; its URL. */
export async function freshDatabase(database: string): Promise<string> {
  await dropDatabase(database);
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`).finally(() => admin.end());
  return databaseUrl(database);
}

export async function dropDatabase(database: string): Promise<void> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).finally(() => admin.end());
}

/** Creates `database` and seeds it up to `pets` pets, unless it has them already. */
export async function prepareDatabase(database: string, pets: number): Promise<void> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const client = new pg.Client({ connectionString: databaseUrl(database) });
  await client.connect();
  // No pets table yet (a new database): the seed migrates it, even for no pets.
  const counted = await client
    .query<{ n: string }>('SELECT count(*) AS n FROM pets')
    .then((r) => Number(r.rows[0].n))
    .catch(() => undefined);
  await client.end();
  if (counted !== undefined && counted >= pets) {
    console.log(`bench: reusing ${database} with ${counted} pets`);
    return;
  }
  console.log(`bench: seeding ${pets} pets into ${database}`);
  await seedPets({ DATABASE_URL: databaseUrl(database) }, pets - (counted ?? 0));
}

/**
 * What autovacuum would have done to the outbox by now, on a server that runs without it
 * (this machine's test cluster: `autovacuum = off`). Each create queues an outbox row that
 * the relay deletes; unvacuumed, the dead rows and the statistics of an empty table turn
 * the relay's claim into a scan of the whole backlog (300 ms a claim after a minute of
 * creates), and the create rows would measure that instead of the service.
 */
export async function vacuumLikeAutovacuum(database: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(database) });
  await client.connect();
  try {
    const { rows } = await client.query<{ on: boolean }>(
      `SELECT current_setting('autovacuum')::bool AS on`,
    );
    if (!rows[0].on) await client.query('VACUUM ANALYZE outbox_messages');
  } finally {
    await client.end();
  }
}

export async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * `users` users, each with its own token: the load is spread over many rate-limit budgets.
 * Staff (`user`) by default; `customer` ones are others (`bench_customer_<n>`).
 */
export async function tokens(
  base: string,
  users: number,
  role: 'user' | 'customer' = 'user',
): Promise<string[]> {
  const login = (username: string, password: string) =>
    fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password }),
    }).then((r) => json<{ token: string }>(r).then((b) => b.token));
  const adminToken = await login('admin', ADMIN_PASSWORD);
  const result: string[] = [];
  for (let i = 0; i < users; i++) {
    const username = role === 'user' ? `bench_${i}` : `bench_${role}_${i}`;
    await fetch(`${base}/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({
        username,
        email: `${username}@bench.invalid`,
        password: ADMIN_PASSWORD,
        role,
      }),
    });
    result.push(await login(username, ADMIN_PASSWORD));
  }
  return result;
}

/** One autocannon run against `origin`: its sample, the responses per second, and their count. */
export async function measure(
  origin: string,
  path: string,
  options: LoadOptions,
): Promise<Sample & { perSecond: number[]; responses: number }> {
  let next = 0;
  let bytes = 0;
  let responses = 0;
  const perSecond: number[] = [];
  // autocannon's histogram keeps whole milliseconds, too coarse for a one-client row's p50
  // of 1 to 3 ms; its response event has the time to the microsecond.
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin,
        connections: options.connections,
        duration: options.seconds,
        ...(options.rate ? { overallRate: options.rate } : {}),
        requests: [
          {
            method: (options.method ?? 'GET') as 'GET',
            path,
            body: options.body,
            headers: options.body ? { 'content-type': 'application/json' } : {},
            // Each request carries the next user's token: many budgets, as in real traffic.
            setupRequest: (request) => {
              const headers = { ...(request.headers as Record<string, string>) };
              if (options.auth) {
                headers.authorization = `Bearer ${options.auth[next++ % options.auth.length]}`;
              }
              const configured = { ...request, headers };
              options.setup?.(configured);
              return configured;
            },
          },
        ],
      },
      (error: Error | null, finished) => (error ? reject(error) : resolve(finished)),
    );
    let thisSecond = 0;
    instance.on('response', (_client, status: number, responseBytes: number, time: number) => {
      // As autocannon's own latencies: 2xx only.
      if (status >= 200 && status < 300) latencies.push(time);
      thisSecond += 1;
      bytes += responseBytes;
      responses += 1;
    });
    instance.on('tick', () => {
      perSecond.push(thisSecond);
      thisSecond = 0;
    });
  });
  return {
    rps: result.requests.average,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    bad: result.non2xx + result.errors + result.timeouts,
    bytes: bytes / Math.max(responses, 1),
    perSecond,
    responses,
  };
}

/** The `fraction` percentile of `values` (nearest rank), to a tenth of a millisecond; 0 for none. */
function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return Math.round(sorted[rank] * 10) / 10;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Samples of one server taken apart (rounds, or chunks of a run) as one: medians, errors summed. */
export function medianSample(samples: Sample[]): Sample {
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    bad: samples.reduce((sum, s) => sum + s.bad, 0),
    bytes: median(samples.map((s) => s.bytes)),
  };
}

/** `work` on a client of its own, connected for it and ended after it. */
export async function withClient<T>(
  databaseUrl: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
