import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TAG_LIST } from '../../../src/pets/sql/pet-reads.sql.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';

type Tag = { id: number; name: string };

/**
 * A pet's tags are held in its row (`tag_list`) beside its links in `pet_tags`: every write
 * of the links writes the row, so every read answers the links' tags.
 */
describe("A pet's tags in its row (e2e)", () => {
  let t: TestApp;
  let categoryId: number;

  beforeAll(async () => {
    t = await createTestApp({ OUTBOX_POLL_INTERVAL_MS: '50', PET_IMPORT_BATCH_ROWS: '25' });
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Tag list' }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** The pet's tags as its links say, in the API's order. */
  async function linkedTags(petId: number): Promise<Tag[]> {
    const [{ tags }] = await t.dataSource.query<{ tags: Tag[] }[]>(
      `SELECT ${TAG_LIST} AS tags FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id
        WHERE pt.pet_id = $1`,
      [petId],
    );
    return tags;
  }

  /** The pet's tags by id, in the list, in both exports and in its last event's snapshot. */
  async function expectTagsEverywhere(petId: number, names: string[]): Promise<void> {
    const tags = await linkedTags(petId);
    expect(tags.map((tag) => tag.name)).toEqual([...names].sort());
    const byId = await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200);
    expect(byId.body.tags).toEqual(tags);
    const listed = await t.http.get('/v1/pets?category=Tag%20list&limit=100').set(t.user);
    const pets = listed.body.pets as { id: number; tags: Tag[] }[];
    expect(pets.find((pet) => pet.id === petId)?.tags).toEqual(tags);
    const ndjson = await t.http
      .get('/v1/pets/export?category=Tag%20list&format=ndjson')
      .set(t.user);
    const line = ndjson.text.split('\n').find((text) => text.startsWith(`{"id":${petId},`))!;
    expect(line).toContain(`"tags":${JSON.stringify(tags)},`);
    const csv = await t.http.get('/v1/pets/export?category=Tag%20list&format=csv').set(t.user);
    const row = csv.text.split('\n').find((text) => text.startsWith(`${petId},`))!;
    expect(row.split(',')[4]).toBe(tags.map((tag) => tag.name).join('|'));
    const [event] = await t.dataSource.query<{ pet: { tags: Tag[] } }[]>(
      'SELECT pet FROM pet_events WHERE pet_id = $1 ORDER BY sequence DESC LIMIT 1',
      [petId],
    );
    expect(event.pet.tags).toEqual(tags);
  }

  it('should answer the links’ tags after a create, a replace, a clear and an import', async () => {
    const created = await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Rex', categoryId, status: 'available', tags: ['zesty', 'able', 'mild'] })
      .expect(201);
    const id = created.body.id as number;
    await expectTagsEverywhere(id, ['able', 'mild', 'zesty']);

    await t.http
      .put(`/v1/pets/${id}`)
      .set(t.user)
      .send({ tags: ['mild', 'newone'] })
      .expect(200);
    await expectTagsEverywhere(id, ['mild', 'newone']);

    await t.http.put(`/v1/pets/${id}`).set(t.user).send({ name: 'Rex II' }).expect(200);
    await expectTagsEverywhere(id, ['mild', 'newone']);

    await t.http.put(`/v1/pets/${id}`).set(t.user).send({ tags: [] }).expect(200);
    await expectTagsEverywhere(id, []);

    const csv = [
      'id,name,category,status,tags,photoUrls,age,breed,description,externalId',
      ',Imported,Tag list,available,quiet|able,,,,,tag-list-1',
    ].join('\n');
    const upload = await t.http
      .post('/v1/pets/imports')
      .set(t.user)
      .field('mode', 'create')
      .attach('file', Buffer.from(csv), { filename: 'pets.csv', contentType: 'text/csv' })
      .expect(202);
    await waitFor(async () => {
      const res = await t.http.get(`/v1/pets/imports/${upload.body.id}`).set(t.user).expect(200);
      return res.body.status === 'succeeded';
    }, 20_000);
    const [imported] = (
      await t.http.get('/v1/pets').query({ externalId: 'tag-list-1' }).set(t.user).expect(200)
    ).body.pets;
    await expectTagsEverywhere(imported.id, ['able', 'quiet']);
  });
});
