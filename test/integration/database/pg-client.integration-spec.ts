import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { PgClient } from '../../../src/database/pg-client.js';
import { TestPostgresServer } from '../../support/postgres-server.js';

const READ_TIMEOUT_MS = 300;

const unavailable = TestPostgresServer.unavailableReason();
if (unavailable) console.warn(`Skipping the pg client tests: ${unavailable}`);
const withOwnServer = unavailable ? describe.skip : describe;

// The pool's connection class answers every form of `query` as pg does, the read timeout
// included, on a server the test may freeze.
withOwnServer(PgClient.name, () => {
  let server: TestPostgresServer;
  let client: PgClient;

  beforeAll(async () => {
    server = await TestPostgresServer.start();
  }, 60_000);

  afterEach(async () => {
    server.thaw();
    await client?.end();
  });

  afterAll(async () => {
    await server?.destroy();
  });

  async function connect(config: pg.ClientConfig = {}): Promise<PgClient> {
    client = new PgClient({ connectionString: server.url, ...config });
    await client.connect();
    return client;
  }

  it('should answer a named statement with values, as TypeORM sends it, with its rows', async () => {
    await connect();
    const query = { name: 'pg_client_sum', text: 'SELECT $1::int + $2::int AS sum' };
    const first = (await client.query(query, [2, 3])) as pg.QueryResult;
    const again = (await client.query(query, [4, 5])) as pg.QueryResult;
    expect(first.rows).toEqual([{ sum: 5 }]);
    expect(again.rows).toEqual([{ sum: 9 }]);
  });

  it("should reject with the server's error, its SQLSTATE kept", async () => {
    await connect();
    await expect(client.query('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
    expect(((await client.query('SELECT 1 AS one')) as pg.QueryResult).rows).toEqual([{ one: 1 }]);
  });

  it('should hand a call with a callback to pg as it came', async () => {
    await connect();
    const rows = await new Promise<unknown[]>((resolve, reject) =>
      client.query(
        'SELECT $1::text AS word',
        ['cat'],
        (error: Error | null, result: pg.QueryResult) =>
          error ? reject(error) : resolve(result.rows),
      ),
    );
    expect(rows).toEqual([{ word: 'cat' }]);
  });

  it("should reject with pg's read-timeout message when the server does not answer, and answer again once it does", async () => {
    await connect({ query_timeout: READ_TIMEOUT_MS });
    server.freeze();
    const started = Date.now();
    await expect(client.query('SELECT 1')).rejects.toThrow('Query read timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 20);
    server.thaw();
    // The unanswered statement is answered first, then this one: the connection goes on.
    expect(((await client.query('SELECT 2 AS two')) as pg.QueryResult).rows).toEqual([{ two: 2 }]);
  });

  it('should not time out a statement the server answers within the read timeout', async () => {
    await connect({ query_timeout: 5_000 });
    const result = (await client.query(
      "SELECT 'awake' AS state FROM pg_sleep(0.2)",
    )) as pg.QueryResult;
    expect(result.rows).toEqual([{ state: 'awake' }]);
  });
});
