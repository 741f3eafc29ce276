import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { AppProcess } from '../../support/app-process.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

// Two instances of the built service on one machine, one PostgreSQL database and one
// Redis, as behind a load balancer. Needs a server: DATABASE_URL and REDIS_URL.
const withServers = process.env.DATABASE_URL && process.env.REDIS_URL ? describe : describe.skip;

withServers('Several instances on one PostgreSQL and Redis (e2e)', () => {
  let database: TestDatabase;
  let first: AppProcess;
  let second: AppProcess;

  beforeAll(async () => {
    // A fresh, empty database: both instances find every migration pending at once.
    database = await createTestDatabase();
    const env = {
      ...database.env,
      REDIS_URL: process.env.REDIS_URL!,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
      // Both instances sign in as the admin: one user, one budget.
      RATE_LIMIT_USER_PER_MINUTE: '4',
    };
    [first, second] = await Promise.all([AppProcess.start(env), AppProcess.start(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.drop();
  });

  it('should apply each migration exactly once when both start together', async () => {
    const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; runs: number }>(
        'SELECT name, count(*)::int AS runs FROM migrations GROUP BY name',
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((row) => row.runs !== 1)).toEqual([]);
    } finally {
      await client.end();
    }
    const applied = [...first.logs(), ...second.logs()].filter((line) =>
      String(line.msg).startsWith('Applied migrations'),
    );
    expect(applied).toHaveLength(1);
  });

  it('should share data and one rate-limit budget per caller', async () => {
    const created = await first.fetch(`/v1/categories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Shared between instances' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const read = await second.fetch(`/v1/categories/${id}`);
    expect(read.status).toBe(200);

    const statuses = [];
    for (const app of [first, second, first, second]) {
      statuses.push((await app.fetch(`/v1/categories`)).status);
    }
    // With a limit of 4 a minute and two requests spent above, alternating instances
    // get two more answers and then 429s: each counts what the other served.
    expect(statuses).toEqual([200, 200, 429, 429]);
    const budget = (await (await first.fetch(`/v1/rate-limit`)).json()) as {
      windows: { window: string; remaining: number }[];
    };
    expect(budget.windows.find((w) => w.window === 'minute')?.remaining).toBe(0);
  });
});
