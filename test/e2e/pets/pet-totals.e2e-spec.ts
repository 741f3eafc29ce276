import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPetsAtOnce } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

// `total` comes from counters kept by triggers, not COUNT(*): check that they agree
// after a burst of concurrent creates, moves in both directions, recategorisations and deletes.
describe('Pet totals under concurrent writes (e2e)', () => {
  let t: TestApp;
  let categories: number[];

  beforeAll(async () => {
    t = await createTestApp();
    categories = [];
    for (const name of ['Dogs', 'Cats']) {
      categories.push((await t.http.post('/v1/categories').set(t.admin).send({ name })).body.id);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('should keep every filtered total equal to a real count', async () => {
    const created = await createPetsAtOnce(t, 40, categories);
    const writes = created.map((pet, i) => {
      const path = `/v1/pets/${pet.id}`;
      if (i % 5 === 0) return t.http.delete(path).set(t.user);
      if (i % 5 === 1) {
        return t.http
          .put(path)
          .set(t.user)
          .send({ categoryId: categories[(i + 1) % 2] });
      }
      // Opposite moves at once: available -> pending and pending -> available.
      return t.http
        .put(path)
        .set(t.user)
        .send({ status: pet.status === 'available' ? 'pending' : 'available' });
    });
    for (const res of await Promise.all(writes)) expect(res.status).toBe(200);

    const actual: { category_id: number; status: string; n: number }[] = await t.dataSource.query(
      'SELECT category_id, status, count(*)::int AS n FROM pets GROUP BY 1, 2',
    );
    const count = (category?: number, status?: string) =>
      actual
        .filter(
          (r) =>
            (category === undefined || r.category_id === category) &&
            (status === undefined || r.status === status),
        )
        .reduce((sum, r) => sum + r.n, 0);
    const total = async (query: string) =>
      (await t.http.get(`/v1/pets?${query}`).set(t.user)).body.pagination.total as number;

    expect(await total('')).toBe(count());
    expect(await total('')).toBe(32);
    for (const status of ['available', 'pending', 'sold']) {
      expect(await total(`status=${status}`)).toBe(count(undefined, status));
      expect(await total(`category=dogs&status=${status}`)).toBe(count(categories[0], status));
    }
    expect(await total('category=CATS')).toBe(count(categories[1]));
  });

  it('should still count a deep page past the end exactly', async () => {
    const res = await t.http.get('/v1/pets?offset=1000').set(t.user);
    expect(res.body).toEqual({
      pets: [],
      pagination: { limit: 20, offset: 1000, total: 32, hasMore: false },
    });
  });
});
