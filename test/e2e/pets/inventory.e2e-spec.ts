import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createApiKey } from '../../support/auth.js';
import { createPetsAtOnce } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

interface Counts {
  available: number;
  pending: number;
  sold: number;
}
type Inventory = Counts & { byCategory: (Counts & { id: number; name: string })[] };

// GET /v1/pets/inventory answers from the counters that triggers keep: it must agree with a
// real COUNT(*) after concurrent creates, moves, recategorisations and deletes.
describe('Pet inventory (e2e)', () => {
  let t: TestApp;
  let dogs: number;
  let cats: number;
  let empty: number;

  const category = async (name: string) =>
    (await t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201)).body.id as number;

  beforeAll(async () => {
    t = await createTestApp();
    dogs = await category('Dogs');
    cats = await category('Cats');
    empty = await category('Axolotls');
  });
  afterAll(async () => {
    await t.close();
  });

  it('should answer 401 AUTHENTICATION_REQUIRED without a credential', async () => {
    const res = await t.http.get('/v1/pets/inventory').expect(401);
    expect(res.body.code).toBe('AUTHENTICATION_REQUIRED');
  });

  it('should list every category by name, with zeros where it has no pets', async () => {
    const res = await t.http.get('/v1/pets/inventory').set(t.user).expect(200);
    expect(res.body).toEqual({
      available: 0,
      pending: 0,
      sold: 0,
      byCategory: [
        { id: empty, name: 'Axolotls', available: 0, pending: 0, sold: 0 },
        { id: cats, name: 'Cats', available: 0, pending: 0, sold: 0 },
        { id: dogs, name: 'Dogs', available: 0, pending: 0, sold: 0 },
      ],
    });
  });

  it('should agree with a real count after concurrent writes, also for an API key', async () => {
    const created = await createPetsAtOnce(t, 30, [dogs, cats]);
    const writes = created.map((pet, i) => {
      const path = `/v1/pets/${pet.id}`;
      if (i % 5 === 0) return t.http.delete(path).set(t.user);
      if (i % 5 === 1) return t.http.put(path).set(t.user).send({ categoryId: dogs });
      if (i % 5 === 2 && pet.status === 'pending') {
        return t.http.put(path).set(t.user).send({ status: 'sold' });
      }
      return t.http
        .put(path)
        .set(t.user)
        .send({ status: pet.status === 'available' ? 'pending' : 'available' });
    });
    for (const res of await Promise.all(writes)) expect(res.status).toBe(200);

    const rows: { category_id: number; status: keyof Counts; n: number }[] =
      await t.dataSource.query(
        'SELECT category_id, status, count(*)::int AS n FROM pets GROUP BY 1, 2',
      );
    const count = (status: keyof Counts, id?: number) =>
      rows
        .filter((r) => r.status === status && (id === undefined || r.category_id === id))
        .reduce((sum, r) => sum + r.n, 0);
    const counts = (id?: number): Counts => ({
      available: count('available', id),
      pending: count('pending', id),
      sold: count('sold', id),
    });
    const { key } = await createApiKey(t, t.user);

    const res = await t.http.get('/v1/pets/inventory').set('X-API-Key', key).expect(200);

    const inventory = res.body as Inventory;
    expect(inventory).toEqual({
      ...counts(),
      byCategory: [
        { id: empty, name: 'Axolotls', ...counts(empty) },
        { id: cats, name: 'Cats', ...counts(cats) },
        { id: dogs, name: 'Dogs', ...counts(dogs) },
      ],
    });
    expect(inventory.available + inventory.pending + inventory.sold).toBe(24);
    expect(inventory.sold).toBeGreaterThan(0);
  });
});
