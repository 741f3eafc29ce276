import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorBody, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

describe('Pet externalId (e2e)', () => {
  let t: TestApp;
  let categoryId: number;

  beforeAll(async () => {
    t = await createTestApp();
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Dogs' }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (extra: object) =>
    t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Rex', categoryId, status: 'available', ...extra });
  const update = (id: number, body: object) => t.http.put(`/v1/pets/${id}`).set(t.user).send(body);

  it('should create a pet with an externalId and show it in the pet', async () => {
    const res = await create({ externalId: 'SKU-1' }).expect(201);
    expect(res.body.externalId).toBe('SKU-1');
    const read = await t.http.get(`/v1/pets/${res.body.id}`).set(t.user).expect(200);
    expect(read.body.externalId).toBe('SKU-1');
  });

  it('should leave externalId out of a pet without one', async () => {
    const res = await create({}).expect(201);
    expect(res.body).not.toHaveProperty('externalId');
  });

  it('should refuse an externalId outside 1..100 characters or not a string', async () => {
    expectValidationError(await create({ externalId: '' }), ['externalId']);
    expectValidationError(await create({ externalId: 'x'.repeat(101) }), ['externalId']);
    expectValidationError(await create({ externalId: 42 }), ['externalId']);
    await create({ externalId: 'y'.repeat(100) }).expect(201);
  });

  it('should answer 409 EXTERNAL_ID_TAKEN to a create with a taken externalId', async () => {
    await create({ externalId: 'SKU-2' }).expect(201);
    const res = await create({ externalId: 'SKU-2' }).expect(409);
    expect(res.body).toEqual(errorBody('EXTERNAL_ID_TAKEN', { field: 'externalId' }));
  });

  it('should compare externalIds as written: another case is another id', async () => {
    await create({ externalId: 'sku-case' }).expect(201);
    await create({ externalId: 'SKU-CASE' }).expect(201);
  });

  it('should answer 409 EXTERNAL_ID_TAKEN to an update to a taken externalId, changing nothing', async () => {
    await create({ externalId: 'SKU-3' }).expect(201);
    const other = (await create({ externalId: 'SKU-4' }).expect(201)).body;
    const res = await update(other.id, { externalId: 'SKU-3', name: 'Max' }).expect(409);
    expect(res.body).toEqual(errorBody('EXTERNAL_ID_TAKEN', { field: 'externalId' }));
    const read = await t.http.get(`/v1/pets/${other.id}`).set(t.user).expect(200);
    expect(read.body).toMatchObject({ name: 'Rex', externalId: 'SKU-4' });
  });

  it('should set, change and clear an externalId by update, named in the history', async () => {
    const pet = (await create({}).expect(201)).body;
    expect((await update(pet.id, { externalId: 'SKU-5' }).expect(200)).body.externalId).toBe(
      'SKU-5',
    );
    // Freed by a change: another pet may take it.
    await update(pet.id, { externalId: 'SKU-6' }).expect(200);
    await create({ externalId: 'SKU-5' }).expect(201);
    const cleared = await update(pet.id, { externalId: null }).expect(200);
    expect(cleared.body).not.toHaveProperty('externalId');

    const history = await t.http.get(`/v1/pets/${pet.id}/history`).set(t.admin).expect(200);
    const updates = (history.body.events as { type: string; changedFields?: string[] }[]).filter(
      (event) => event.type === 'pet.updated',
    );
    expect(updates.map((event) => event.changedFields)).toEqual([
      ['externalId'],
      ['externalId'],
      ['externalId'],
    ]);
  });

  it('should list only the pet with exactly the externalId the filter names', async () => {
    const pet = (await create({ externalId: 'Filter-7' }).expect(201)).body;
    await create({ externalId: 'Filter-70' }).expect(201);
    const res = await t.http.get('/v1/pets').query({ externalId: 'Filter-7' }).set(t.user);
    expect(res.status).toBe(200);
    const pets = res.body.pets as { id: number }[];
    expect(pets.map((p) => p.id)).toEqual([pet.id]);
    expect(res.body.pagination.total).toBe(1);
    const none = await t.http.get('/v1/pets').query({ externalId: 'filter-7' }).set(t.user);
    expect(none.body.pets).toEqual([]);
    expectValidationError(
      await t.http
        .get('/v1/pets')
        .query({ externalId: 'x'.repeat(101) })
        .set(t.user),
      ['externalId'],
    );
  });
});
