import { TAG_LIST } from '../../src/pets/sql/pet-reads.sql.js';
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

/**
 * Links pets to tags (which exist) in bulk SQL, as a fixture, and writes each linked pet's
 * `tag_list` as the app's writes do.
 */
export async function linkTags(t: TestApp, links: (readonly [number, string])[]): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO pet_tags (pet_id, tag_id)
     SELECT u.pet_id, t.id FROM unnest($1::int8[], $2::text[]) AS u(pet_id, tag)
       JOIN tags t ON t.name = u.tag`,
    [links.map(([id]) => id), links.map(([, tag]) => tag)],
  );
  await t.dataSource.query(
    `UPDATE pets p SET tag_list = l.tag_list
       FROM (SELECT pt.pet_id, ${TAG_LIST} AS tag_list
               FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id
              WHERE pt.pet_id = ANY($1::int8[]) GROUP BY pt.pet_id) l
      WHERE p.id = l.pet_id`,
    [[...new Set(links.map(([id]) => id))]],
  );
}
