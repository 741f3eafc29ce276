import type { TestApp } from './test-app.js';

let categories = 0;

/** A pet in a fresh category, created through the API; returns its id. */
export async function createPet(t: TestApp, fields: Record<string, unknown> = {}): Promise<number> {
  categories += 1;
  const category = await t.http
    .post('/v1/categories')
    .set(t.admin)
    .send({ name: `Category ${categories}` })
    .expect(201);
  const pet = await t.http
    .post('/v1/pets')
    .set(t.user)
    .send({ name: 'Rex', categoryId: category.body.id, status: 'available', ...fields })
    .expect(201);
  return pet.body.id as number;
}

/**
 * `count` pets created at once, pet `i` in `categoryIds[i % categoryIds.length]`, every third
 * (from the first) pending and the others available: a burst of concurrent counted inserts.
 */
export function createPetsAtOnce(
  t: TestApp,
  count: number,
  categoryIds: number[],
): Promise<{ id: number; status: string }[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      t.http
        .post('/v1/pets')
        .set(t.user)
        .send({
          name: `P${i}`,
          categoryId: categoryIds[i % categoryIds.length],
          status: i % 3 === 0 ? 'pending' : 'available',
        })
        .expect(201)
        .then((res) => res.body as { id: number; status: string }),
    ),
  );
}
