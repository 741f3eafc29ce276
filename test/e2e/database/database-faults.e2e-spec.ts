import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { Response } from 'supertest';
import { MIGRATION_LOCK_KEY } from '../../../src/database/migrate.js';
import { AppProcess } from '../../support/app-process.js';
import { expectError } from '../../support/errors.js';
import { TestPostgresServer } from '../../support/postgres-server.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitForLockWaiters } from '../../support/wait.js';

const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 1_500;
// The client's own query timeout is one second longer; then the answer has to travel.
const UNAVAILABLE_WITHIN_MS = STATEMENT_TIMEOUT_MS + 1_000 + 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed<T>(work: () => PromiseLike<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
}

async function eventually(
  request: () => PromiseLike<Response>,
  status: number,
  withinMs = 15_000,
): Promise<Response> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const res = await request();
    if (res.status === status || Date.now() > deadline) return res;
    await sleep(200);
  }
}

const unavailable = TestPostgresServer.unavailableReason();
if (unavailable) console.warn(`Skipping the database fault tests: ${unavailable}`);
const withOwnServer = unavailable ? describe.skip : describe;

withOwnServer('Database faults (e2e, on a PostgreSQL server of the test’s own)', () => {
  let server: TestPostgresServer;
  let dataDir: string;
  let t: TestApp;

  beforeAll(async () => {
    server = await TestPostgresServer.start();
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-faults-'));
    t = await createTestApp(
      {
        DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        DATABASE_POOL_MAX: '4',
      },
      {
        database: {
          env: { DATABASE_URL: server.url, DATA_DIR: dataDir },
          jwtSecret: randomBytes(32).toString('base64url'),
          drop: () => Promise.resolve(),
        },
      },
    );
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await server?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('should answer 503 with Retry-After while PostgreSQL is stopped, and recover without a restart', async () => {
    const created = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Before the outage' });
    expect(created.status).toBe(201);

    await server.stop();
    const { result: read, ms } = await timed(() => t.http.get('/v1/categories').set(t.admin));
    expectError(read, 503, 'SERVICE_UNAVAILABLE');
    expect(read.headers['retry-after']).toBe('5');
    expect(ms).toBeLessThan(UNAVAILABLE_WITHIN_MS);
    expectError(
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'During the outage' }),
      503,
      'SERVICE_UNAVAILABLE',
    );
    const ready = await t.http.get('/health/ready');
    expectError(ready, 503, 'SERVICE_UNAVAILABLE');
    expect(ready.headers['retry-after']).toBe('5');
    expect(ready.body.details.checks).toMatchObject({ server: 'up', database: 'down' });
    expect((await t.http.get('/health/live')).status).toBe(200);

    await server.restart();
    const again = await eventually(
      () => t.http.get(`/v1/categories/${created.body.id}`).set(t.admin),
      200,
    );
    expect(again.body).toEqual(created.body);
    expect((await t.http.get('/health/ready')).status).toBe(200);
  });

  it('should answer 503 within the timeouts while PostgreSQL is frozen, and recover when it resumes', async () => {
    // Warm the pool: requests then meet idle connections whose queries go unanswered as
    // well as new connections whose start-up goes unanswered, and a full pool.
    await Promise.all([1, 2, 3].map(() => t.http.get('/v1/categories').set(t.admin)));
    server.freeze();
    try {
      const reads = await Promise.all(
        Array.from({ length: 6 }, () => timed(() => t.http.get('/v1/categories').set(t.admin))),
      );
      for (const { result, ms } of reads) {
        expectError(result, 503, 'SERVICE_UNAVAILABLE');
        expect(ms).toBeLessThan(UNAVAILABLE_WITHIN_MS);
      }
      const { result: ready, ms } = await timed(() => t.http.get('/health/ready'));
      expectError(ready, 503, 'SERVICE_UNAVAILABLE');
      expect(ms).toBeLessThan(UNAVAILABLE_WITHIN_MS);
      expect((await t.http.get('/health/live')).status).toBe(200);
    } finally {
      server.thaw();
    }
    expect((await eventually(() => t.http.get('/v1/categories').set(t.admin), 200)).status).toBe(
      200,
    );
    expect((await eventually(() => t.http.get('/health/ready'), 200)).status).toBe(200);
  });

  it('should cancel a statement that outlasts DATABASE_STATEMENT_TIMEOUT_MS and answer 503', async () => {
    const locker = new pg.Client({ connectionString: server.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE categories IN ACCESS EXCLUSIVE MODE');
      const { result, ms } = await timed(() => t.http.get('/v1/categories').set(t.admin));
      expectError(result, 503, 'SERVICE_UNAVAILABLE');
      expect(ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
      expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1_000);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  });

  it('should fail start-up clearly once MIGRATION_LOCK_TIMEOUT_MS passes while another session holds the migration lock', async () => {
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const started = Date.now();
      const { code, lines } = await AppProcess.failedStart({
        DATABASE_URL: server.url,
        DATA_DIR: dataDir,
        MIGRATION_LOCK_TIMEOUT_MS: '1500',
      });
      const ms = Date.now() - started;
      expect(code).toBe(1);
      expect(lines.join('\n')).toContain(
        `Start-up failed: Migration lock not acquired within MIGRATION_LOCK_TIMEOUT_MS (1500 ms): another session holds PostgreSQL advisory lock ${MIGRATION_LOCK_KEY}`,
      );
      expect(ms).toBeGreaterThanOrEqual(1_500);
      // Node's start and the app's modules take a few seconds on a busy machine.
      expect(ms).toBeLessThan(15_000);
    } finally {
      await holder.end();
    }
  });

  describe('graceful shutdown of the built service', () => {
    const appEnv = () => ({
      DATABASE_URL: server.url,
      DATA_DIR: dataDir,
      // Longer than the lock the slow request waits on.
      DATABASE_STATEMENT_TIMEOUT_MS: '10000',
      SHUTDOWN_TIMEOUT_MS: '10000',
    });

    it('should finish the request in flight on SIGTERM, refuse new connections, and exit 0', async () => {
      const app = await AppProcess.start(appEnv());
      const locker = new pg.Client({ connectionString: server.url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE categories IN ACCESS EXCLUSIVE MODE');
        const slow = app.fetch(`/v1/categories`);
        await waitForLockWaiters(locker, 1, 'categories');

        app.signal('SIGTERM');
        await sleep(300);
        await expect(fetch(`${app.url}/health/live`)).rejects.toThrow();

        await locker.query('COMMIT');
        const res = await slow;
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ categories: expect.any(Array) });
        expect(await app.exitCode()).toBe(0);
        expect(app.logs().map((line) => line.msg)).toContain('Shut down cleanly');
      } finally {
        await locker.end();
        await app.stop();
      }
    });

    it('should keep every write it acknowledged before SIGTERM, and fail none with 5xx', async () => {
      const first = await AppProcess.start(appEnv());
      const create = (name: string) =>
        first
          .fetch(`/v1/categories`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name }),
          })
          .then(
            async (res) => ({ status: res.status, body: (await res.json()) as { id: number } }),
            // Refused or cut off before an answer: never acknowledged.
            () => undefined,
          );
      const before = await create('Acknowledged before SIGTERM');
      const burst = Array.from({ length: 8 }, (_, i) => create(`Written during shutdown ${i}`));
      first.signal('SIGTERM');
      const results = [before, ...(await Promise.all(burst))];
      expect(await first.exitCode()).toBe(0);

      const answered = results.filter((r) => r !== undefined);
      expect(answered.map((r) => r.status).filter((status) => status !== 201)).toEqual([]);
      const second = await AppProcess.start(appEnv());
      try {
        for (const { body } of answered) {
          const res = await second.fetch(`/v1/categories/${body.id}`);
          expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body });
        }
      } finally {
        expect(await second.stop()).toBe(0);
      }
    });
  });
});
