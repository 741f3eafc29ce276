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
