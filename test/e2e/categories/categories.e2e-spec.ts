import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

describe('Categories (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (body: object) => t.http.post('/v1/categories').set(t.admin).send(body);

  it('should create a category and return it with a numeric id', async () => {
    const res = await create({ name: '  Dogs ', description: 'Woof' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), name: 'Dogs', description: 'Woof' });
  });

  it('should leave a missing description out', async () => {
    const res = await create({ name: 'Fish' });
    expect(res.body).toEqual({ id: expect.any(Number), name: 'Fish' });
  });

  it('should list categories ordered by name', async () => {
    await create({ name: 'Birds' });
    const res = await t.http.get('/v1/categories').set(t.user);
    expect(res.status).toBe(200);
    const names = (res.body.categories as { name: string }[]).map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(names).toEqual(expect.arrayContaining(['Birds', 'Dogs', 'Fish']));
  });

  it('should refuse a name taken in another case with 409 CONFLICT on name', async () => {
    const res = await create({ name: 'DOGS' });
    expectError(res, 409, 'CONFLICT');
    expect(res.body.details).toEqual({ field: 'name' });
  });

  it.each([
    ['missing name', {}, ['name']],
    ['blank name', { name: '   ' }, ['name']],
    ['name over 50 characters', { name: 'x'.repeat(51) }, ['name']],
    [
      'description over 500 characters',
      { name: 'Ok', description: 'x'.repeat(501) },
      ['description'],
    ],
    ['non-string name', { name: 42 }, ['name']],
    ['unknown field', { name: 'Ok', id: 7 }, ['id']],
  ])('should refuse a %s with 400 VALIDATION_ERROR', async (_label, body, fields) => {
    expectValidationError(await create(body), fields);
  });

  it('should get one category by id', async () => {
    const created = await create({ name: 'Reptiles', description: 'Scaly' });
    const res = await t.http.get(`/v1/categories/${created.body.id}`).set(t.user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });

  it('should answer 404 CATEGORY_NOT_FOUND for a well-formed unknown id', async () => {
    expectError(await t.http.get('/v1/categories/999999').set(t.user), 404, 'CATEGORY_NOT_FOUND');
  });

  it.each(['abc', '0', '-1', '1.5', '9223372036854775808'])(
    'should refuse the id %s with 400 VALIDATION_ERROR',
    async (id) => {
      expectValidationError(await t.http.get(`/v1/categories/${id}`).set(t.user), ['id']);
    },
  );

  it('should update a category partially', async () => {
    const created = await create({ name: 'Rodents', description: 'Small' });
    const res = await t.http
      .put(`/v1/categories/${created.body.id}`)
      .set(t.admin)
      .send({ description: 'Small and quick' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: created.body.id,
      name: 'Rodents',
      description: 'Small and quick',
    });
  });

  it('should refuse an empty update body', async () => {
    const created = await create({ name: 'Insects' });
    const res = await t.http.put(`/v1/categories/${created.body.id}`).set(t.admin).send({});
    expectValidationError(res, ['body']);
  });

  it('should refuse renaming onto a taken name with 409 CONFLICT', async () => {
    const created = await create({ name: 'Horses' });
    const res = await t.http
      .put(`/v1/categories/${created.body.id}`)
      .set(t.admin)
      .send({ name: 'fish' });
    expectError(res, 409, 'CONFLICT');
  });

  it('should answer 404 CATEGORY_NOT_FOUND when updating an unknown category', async () => {
    const res = await t.http.put('/v1/categories/999999').set(t.admin).send({ name: 'Nope' });
    expectError(res, 404, 'CATEGORY_NOT_FOUND');
  });

  it('should delete an unused category with 200 {}', async () => {
    const created = await create({ name: 'Ferrets' });
    const res = await t.http.delete(`/v1/categories/${created.body.id}`).set(t.admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(
      await t.http.get(`/v1/categories/${created.body.id}`).set(t.user),
      404,
      'CATEGORY_NOT_FOUND',
    );
  });

  it('should answer 404 CATEGORY_NOT_FOUND when deleting an unknown category', async () => {
    expectError(
      await t.http.delete('/v1/categories/999999').set(t.admin),
      404,
      'CATEGORY_NOT_FOUND',
    );
  });

  it('should refuse to delete a category that pets still use with 409 CATEGORY_IN_USE', async () => {
    const category = await create({ name: 'Cats' });
    await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Tom', categoryId: category.body.id, status: 'available' })
      .expect(201);
    const res = await t.http.delete(`/v1/categories/${category.body.id}`).set(t.admin);
    expectError(res, 409, 'CATEGORY_IN_USE');
    expect((await t.http.get(`/v1/categories/${category.body.id}`).set(t.user)).status).toBe(200);
  });
});
