import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

// PGlite runs a statement to its end on the service's own thread: it has no statement
// time-outs (docs/operations.md), so the cut is a PostgreSQL server's.
const serverOnly = process.env.DATABASE_URL ? describe : describe.skip;

const PETS = 5_000;

serverOnly('Search statement time-out (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // No search over 5,000 pets ranks and counts them all within a millisecond.
    t = await createTestApp({ SEARCH_STATEMENT_TIMEOUT_MS: '1' });
    const category = await t.http.post('/v1/categories').set(t.admin).send({ name: 'Dogs' });
    await t.dataSource.query(
      `INSERT INTO pets (name, category_id, status, breed)
       SELECT 'Labrador ' || n, $1, 'available', 'Labrador' FROM generate_series(1, $2::int) n`,
      [category.body.id, PETS],
    );
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  it('should cut a search that runs past the time-out and answer 503 with Retry-After', async () => {
    const res = await t.http.get('/v1/pets?q=labrador').set(t.user);
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("should cut a search's facets the same way", async () => {
    const res = await t.http.get('/v1/pets/facets?breed=labrador').set(t.user);
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('should leave the plain list, which the counters count, to the time-out of every statement', async () => {
    const res = await t.http.get('/v1/pets?limit=1').set(t.user).expect(200);
    expect(res.body.pagination.total).toBe(PETS);
  });
});
