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

  it('should count the facets of the default views from counters, within any time-out', async () => {
    const facets = (query: string) =>
      t.http.get(`/v1/pets/facets?${query}`).set(t.user).expect(200);
    const all = await facets('');
    expect(all.body).toMatchObject({
      total: PETS,
      status: { available: PETS, pending: 0, sold: 0 },
    });
    expect((await facets('category=dogs')).body.total).toBe(PETS);
    expect((await facets('status=available&category=Dogs')).body.total).toBe(PETS);
  });

  it('should leave the plain list, which the counters count, to the time-out of every statement', async () => {
    const res = await t.http.get('/v1/pets?limit=1').set(t.user).expect(200);
    expect(res.body.pagination.total).toBe(PETS);
  });
});
