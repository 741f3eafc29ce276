import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectValidationError } from '../../support/errors.js';
import { pngImage } from '../../support/images.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { uploadImage } from '../../support/uploads.js';

/**
 * docs/api.md (Pets, and each resource's fields): an optional field with no value is left
 * out of the response (never `null`); `null` in a PUT body clears such a field.
 */
describe('Response shape (e2e)', () => {
  let t: TestApp;
  let categoryId: number;

  beforeAll(async () => {
    t = await createTestApp();
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Shape dogs' }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const PET_OPTIONALS = ['age', 'breed', 'description'] as const;
  const USER_OPTIONALS = ['firstName', 'lastName', 'phone'] as const;

  function expectAbsent(body: Record<string, unknown>, fields: readonly string[]): void {
    for (const field of fields) expect(body).not.toHaveProperty(field);
  }

  const createPet = (body: object) =>
    t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Rex', categoryId, status: 'available', ...body });
  const getPet = async (id: number) =>
    (await t.http.get(`/v1/pets/${id}`).set(t.user).expect(200)).body;
  const listedPet = async (id: number) => {
    const res = await t.http.get('/v1/pets?limit=100').set(t.user).expect(200);
    return (res.body.pets as { id: number }[]).find((pet) => pet.id === id)!;
  };

  describe('pets', () => {
    it('should leave age, breed, description and the category description out when unset', async () => {
      const res = await createPet({}).expect(201);
      for (const body of [res.body, await getPet(res.body.id), await listedPet(res.body.id)]) {
        expectAbsent(body, PET_OPTIONALS);
        expect(body.category).toEqual({ id: categoryId, name: 'Shape dogs' });
      }
    });

    it('should take null on create as a field left out', async () => {
      const res = await createPet({ age: null, breed: null, description: null });
      expect(res.status).toBe(201);
      expectAbsent(res.body, PET_OPTIONALS);
    });

    it('should clear age, breed and description set to null on PUT', async () => {
      const pet = (await createPet({ age: 3, breed: 'Pug', description: 'Calm' }).expect(201)).body;
      const res = await t.http
        .put(`/v1/pets/${pet.id}`)
        .set(t.user)
        .send({ age: null, breed: null, description: null });
      expect(res.status).toBe(200);
      const { age: _age, breed: _breed, description: _description, ...rest } = pet;
      expect(res.body).toEqual({ ...rest, updatedAt: expect.any(String) });
      for (const body of [res.body, await getPet(pet.id), await listedPet(pet.id)]) {
        expectAbsent(body, PET_OPTIONALS);
      }
    });

    it('should clear one field and keep the others', async () => {
      const pet = (await createPet({ age: 3, breed: 'Pug', description: 'Calm' }).expect(201)).body;
      const res = await t.http.put(`/v1/pets/${pet.id}`).set(t.user).send({ breed: null });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('breed');
      expect(res.body).toMatchObject({ age: 3, description: 'Calm' });
    });

    it.each([
      ['name', { name: null }],
      ['categoryId', { categoryId: null }],
      ['status', { status: null }],
      ['photoUrls', { photoUrls: null }],
      ['tags', { tags: null }],
    ])('should refuse null for %s on create and on PUT', async (field, body) => {
      expectValidationError(await createPet(body), [field]);
      const pet = (await createPet({}).expect(201)).body;
      expectValidationError(await t.http.put(`/v1/pets/${pet.id}`).set(t.user).send(body), [field]);
    });

    it('should still validate a value that is not null', async () => {
      const pet = (await createPet({}).expect(201)).body;
      const res = await t.http.put(`/v1/pets/${pet.id}`).set(t.user).send({ age: 'three' });
      expectValidationError(res, ['age']);
    });
  });

  describe('categories', () => {
    it('should leave the description out when unset, and clear it with null on PUT', async () => {
      const created = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .send({ name: 'Shape cats', description: 'Meow' })
        .expect(201);
      const res = await t.http
        .put(`/v1/categories/${created.body.id}`)
        .set(t.admin)
        .send({ description: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: created.body.id, name: 'Shape cats' });
      const listed = await t.http.get('/v1/categories').set(t.user).expect(200);
      expect(listed.body.categories).toContainEqual({ id: created.body.id, name: 'Shape cats' });
      const one = await t.http.get(`/v1/categories/${created.body.id}`).set(t.user).expect(200);
      expect(one.body).toEqual({ id: created.body.id, name: 'Shape cats' });
    });

    it('should take a null description on create as left out', async () => {
      const res = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .send({ name: 'Shape birds', description: null });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number), name: 'Shape birds' });
    });

    it('should refuse a null name on PUT', async () => {
      const res = await t.http
        .put(`/v1/categories/${categoryId}`)
        .set(t.admin)
        .send({ name: null });
      expectValidationError(res, ['name']);
    });
  });

  describe('users', () => {
    let sequence = 0;
    const createUser = (body: object = {}) => {
      sequence += 1;
      return t.http
        .post('/v1/users')
        .set(t.admin)
        .send({
          username: `shape${sequence}`,
          email: `shape${sequence}@example.com`,
          password: 'a long enough password',
          ...body,
        });
    };

    it('should leave firstName, lastName and phone out when unset', async () => {
      const res = await createUser().expect(201);
      const one = await t.http.get(`/v1/users/${res.body.id}`).set(t.admin).expect(200);
      const list = await t.http.get('/v1/users').set(t.admin).expect(200);
      const listed = (list.body.users as { id: number }[]).find((u) => u.id === res.body.id)!;
      for (const body of [res.body, one.body, listed]) expectAbsent(body, USER_OPTIONALS);
    });

    it('should take null on create as a field left out', async () => {
      const res = await createUser({ firstName: null, lastName: null, phone: null });
      expect(res.status).toBe(201);
      expectAbsent(res.body, USER_OPTIONALS);
    });

    it('should clear firstName, lastName and phone set to null on PUT', async () => {
      const user = (
        await createUser({ firstName: 'Ada', lastName: 'Lovelace', phone: '+44 1' }).expect(201)
      ).body;
      const res = await t.http
        .put(`/v1/users/${user.id}`)
        .set(t.admin)
        .send({ firstName: null, lastName: null, phone: null });
      expect(res.status).toBe(200);
      const { firstName: _f, lastName: _l, phone: _p, ...rest } = user;
      expect(res.body).toEqual({ ...rest, updatedAt: expect.any(String) });
      const one = await t.http.get(`/v1/users/${user.id}`).set(t.admin).expect(200);
      expectAbsent(one.body, USER_OPTIONALS);
    });

    it.each([
      ['username', { username: null }],
      ['email', { email: null }],
      ['password', { password: null }],
      ['role', { role: null }],
      ['userStatus', { userStatus: null }],
    ])('should refuse null for %s on create and on PUT', async (field, body) => {
      expectValidationError(await createUser(body), [field]);
      const user = (await createUser().expect(201)).body;
      expectValidationError(await t.http.put(`/v1/users/${user.id}`).set(t.admin).send(body), [
        field,
      ]);
    });
  });

  describe('images', () => {
    it('should leave out the description of an image uploaded without one', async () => {
      const pet = (await createPet({}).expect(201)).body;
      await uploadImage(t, pet.id, await pngImage(8, 8), {
        filename: 'a.png',
        contentType: 'image/png',
      }).expect(201);
      const res = await t.http.get(`/v1/pets/${pet.id}/images`).set(t.user).expect(200);
      expect(res.body.images).toHaveLength(1);
      expect(res.body.images[0]).not.toHaveProperty('description');
    });
  });
});
