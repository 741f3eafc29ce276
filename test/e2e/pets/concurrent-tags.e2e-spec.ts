import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

// Two writes that create the same new tags in opposite orders used to take the tags' rows
// in opposite orders and deadlock on PostgreSQL (40P01, answered 500): without the fixed
// order, about every pair below did. Every answer must be a success, neither 500 nor 503.
describe('Concurrent writes with the same new tags (e2e)', () => {
  const PAIRS = 20;
  // The most tags a pet holds: the longer the insert, the more two of them overlap.
  const TAGS_PER_PET = 20;
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    // Test-only: a pause before each tag row widens the window in which two inserts of the
    // same tags overlap, so that opposite orders meet every time instead of now and then.
    await t.dataSource.query(`
      CREATE FUNCTION slow_tag_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.002); RETURN NEW; END $$`);
    await t.dataSource.query(`
      CREATE TRIGGER slow_tag_insert BEFORE INSERT ON tags
      FOR EACH ROW EXECUTE FUNCTION slow_tag_insert()`);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Pair i's new tag names, in one order and in the opposite one. */
  const tagsOfPair = (prefix: string, i: number) => {
    const names = Array.from({ length: TAGS_PER_PET }, (_, n) => `${prefix}${i}-${n}`);
    return [names, [...names].reverse()];
  };

  it('should answer every create 201 with the tags sorted by name', async () => {
    // A category per pet, so that creates do not queue on one (category, status) counter.
    const categories = await Promise.all(
      Array.from({ length: PAIRS * 2 }, async (_, n) => {
        const res = await t.http
          .post('/v1/categories')
          .set(t.admin)
          .send({ name: `Create ${n}` });
        return res.body.id as number;
      }),
    );
    const creates = Array.from({ length: PAIRS }, (_, i) =>
      tagsOfPair('create', i).map((tags, side) =>
        t.http
          .post('/v1/pets')
          .set(t.user)
          .send({ name: 'Rex', categoryId: categories[i * 2 + side], status: 'available', tags }),
      ),
    ).flat();

    const responses = await Promise.all(creates);

    expect(responses.map((res) => res.status)).toEqual(creates.map(() => 201));
    for (const [n, res] of responses.entries()) {
      const [names] = tagsOfPair('create', Math.floor(n / 2));
      expect((res.body.tags as { name: string }[]).map((tag) => tag.name)).toEqual(
        [...names].sort(),
      );
    }
  });

  it('should answer every update 200', async () => {
    const pets = await Promise.all(Array.from({ length: PAIRS * 2 }, () => createPet(t)));
    const updates = Array.from({ length: PAIRS }, (_, i) =>
      tagsOfPair('update', i).map((tags, side) =>
        t.http
          .put(`/v1/pets/${pets[i * 2 + side]}`)
          .set(t.user)
          .send({ tags }),
      ),
    ).flat();

    const responses = await Promise.all(updates);

    expect(responses.map((res) => res.status)).toEqual(updates.map(() => 200));
  });

  // Both also count a pet under the same (category, status) counter row: were the tags taken
  // before that row in one write and after it in the other, each would wait for the other.
  it('should answer a create and a status move into the same counter 2xx', async () => {
    const pending = await Promise.all(
      Array.from({ length: PAIRS }, () => createPet(t, { status: 'pending' })),
    );
    const categoryOf = async (id: number) =>
      (await t.http.get(`/v1/pets/${id}`).set(t.user).expect(200)).body.category.id as number;
    const categories = await Promise.all(pending.map(categoryOf));
    const writes = pending.flatMap((id, i) => {
      const [tags, reversed] = tagsOfPair('counted', i);
      return [
        t.http
          .post('/v1/pets')
          .set(t.user)
          .send({ name: 'Rex', categoryId: categories[i], status: 'available', tags }),
        t.http.put(`/v1/pets/${id}`).set(t.user).send({ status: 'available', tags: reversed }),
      ];
    });

    const responses = await Promise.all(writes);

    expect(responses.map((res) => res.status)).toEqual(writes.map((_, n) => (n % 2 ? 200 : 201)));
  });
});
