import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { errorBody, expectError, expectValidationError } from '../../support/errors.js';
import { pngImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { uploadImage } from '../../support/uploads.js';

const STRONG_ETAG = /^"[0-9.]+"$/;

// docs/api.md, Conditional requests (ETag): single pets, categories and users carry a
// strong ETag from their row version; If-None-Match gives 304, and If-Match makes PUT and
// DELETE conditional (412 when stale).
describe('Conditional requests (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const etagOf = (res: Response) => res.headers.etag;

  describe('pets', () => {
    const get = (id: number) => t.http.get(`/v1/pets/${id}`).set(t.user);

    it('should send a strong ETag that stays the same while the pet does', async () => {
      const id = await createPet(t);

      const first = await get(id).expect(200);
      const second = await get(id).expect(200);

      expect(etagOf(first)).toMatch(STRONG_ETAG);
      expect(etagOf(second)).toBe(etagOf(first));
    });

    it('should answer 304 with no body when If-None-Match holds the current ETag', async () => {
      const id = await createPet(t);
      const etag = etagOf(await get(id).expect(200));

      for (const ifNoneMatch of [etag, `"nope", ${etag}`, `W/${etag}`, '*']) {
        const res = await get(id).set('If-None-Match', ifNoneMatch).expect(304);
        expect(res.text).toBeFalsy();
        expect(etagOf(res)).toBe(etag);
      }
    });

    it('should answer 200 with the pet when If-None-Match holds an older ETag', async () => {
      const id = await createPet(t);
      const old = etagOf(await get(id).expect(200));
      await t.http.put(`/v1/pets/${id}`).set(t.user).send({ name: 'Fido' }).expect(200);

      const res = await get(id).set('If-None-Match', old).expect(200);

      expect(res.body.name).toBe('Fido');
      expect(etagOf(res)).not.toBe(old);
    });

    it('should return the new ETag from PUT, the one a GET then sends', async () => {
      const id = await createPet(t);
      const before = etagOf(await get(id).expect(200));

      const put = await t.http.put(`/v1/pets/${id}`).set(t.user).send({ age: 3 }).expect(200);

      expect(etagOf(put)).toMatch(STRONG_ETAG);
      expect(etagOf(put)).not.toBe(before);
      expect(etagOf(await get(id).expect(200))).toBe(etagOf(put));
    });

    it('should update when If-Match holds the current ETag (or *)', async () => {
      const id = await createPet(t);
      const etag = etagOf(await get(id).expect(200));

      const put = await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .set('If-Match', `"0.0", ${etag}`)
        .send({ name: 'Fido' })
        .expect(200);
      await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .set('If-Match', '*')
        .send({ name: 'Bello' })
        .expect(200);

      expect(put.body.name).toBe('Fido');
      expect((await get(id).expect(200)).body.name).toBe('Bello');
    });

    it('should answer 412 PRECONDITION_FAILED with the current ETag and change nothing when If-Match is stale', async () => {
      const id = await createPet(t);
      const stale = etagOf(await get(id).expect(200));
      const current = etagOf(
        await t.http.put(`/v1/pets/${id}`).set(t.user).send({ name: 'Fido' }).expect(200),
      );

      const res = await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .set('If-Match', stale)
        .send({ name: 'Lost update', status: 'pending' });

      expectError(res, 412, 'PRECONDITION_FAILED');
      expect(res.body.details).toEqual({ currentEtag: current });
      const after = await get(id).expect(200);
      expect(after.body).toMatchObject({ name: 'Fido', status: 'available' });
      expect(etagOf(after)).toBe(current);
    });

    it('should never match a weak tag in If-Match (strong comparison)', async () => {
      const id = await createPet(t);
      const etag = etagOf(await get(id).expect(200));

      const res = await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .set('If-Match', `W/${etag}`)
        .send({ name: 'Fido' });

      expectError(res, 412, 'PRECONDITION_FAILED');
    });

    it('should report a stale If-Match before a forbidden status move', async () => {
      const id = await createPet(t, { status: 'available' });
      const stale = etagOf(await get(id).expect(200));
      await t.http.put(`/v1/pets/${id}`).set(t.user).send({ name: 'Fido' }).expect(200);

      const res = await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .set('If-Match', stale)
        .send({ status: 'sold' });

      expectError(res, 412, 'PRECONDITION_FAILED');
    });

    it('should let exactly one of two racing PUTs with the same If-Match win', async () => {
      const id = await createPet(t, { tags: ['calm'] });
      const etag = etagOf(await get(id).expect(200));

      const answers = await Promise.all(
        ['Fido', 'Bello'].map((name) =>
          t.http.put(`/v1/pets/${id}`).set(t.user).set('If-Match', etag).send({ name, tags: [] }),
        ),
      );

      expect(answers.map((res) => res.status).sort()).toEqual([200, 412]);
      const winner = answers.find((res) => res.status === 200)!;
      const loser = answers.find((res) => res.status === 412)!;
      expect(loser.body.details).toEqual({ currentEtag: etagOf(winner) });
      expect((await get(id).expect(200)).body.name).toBe(winner.body.name);
    });

    it('should change the pet’s ETag when its category is renamed (the pet embeds it)', async () => {
      const id = await createPet(t);
      const before = await get(id).expect(200);

      await t.http
        .put(`/v1/categories/${before.body.category.id}`)
        .set(t.admin)
        .send({ name: `Renamed ${id}` })
        .expect(200);

      const after = await get(id).set('If-None-Match', etagOf(before)).expect(200);
      expect(after.body.category.name).toBe(`Renamed ${id}`);
      const res = await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .set('If-Match', etagOf(before))
        .send({ name: 'Fido' });
      expectError(res, 412, 'PRECONDITION_FAILED');
    });

    it('should change the pet’s ETag when an image is uploaded', async () => {
      const id = await createPet(t);
      const before = etagOf(await get(id).expect(200));

      await uploadImage(t, id, await pngImage(8, 8), { contentType: 'image/png' }).expect(201);

      expect(etagOf(await get(id).expect(200))).not.toBe(before);
    });

    it('should delete only when If-Match holds the current ETag', async () => {
      const id = await createPet(t);
      const stale = etagOf(await get(id).expect(200));
      const current = etagOf(
        await t.http.put(`/v1/pets/${id}`).set(t.user).send({ name: 'Fido' }).expect(200),
      );

      const refused = await t.http.delete(`/v1/pets/${id}`).set(t.user).set('If-Match', stale);
      expectError(refused, 412, 'PRECONDITION_FAILED');
      expect(refused.body.details).toEqual({ currentEtag: current });
      await get(id).expect(200);

      await t.http.delete(`/v1/pets/${id}`).set(t.user).set('If-Match', current).expect(200);
      await get(id).expect(404);
    });

    it('should answer 404 PET_NOT_FOUND for a pet that does not exist, whatever If-Match holds', async () => {
      for (const ifMatch of ['*', '"1.1"']) {
        expectError(
          await t.http.put('/v1/pets/999999').set(t.user).set('If-Match', ifMatch).send({ age: 1 }),
          404,
          'PET_NOT_FOUND',
        );
        expectError(
          await t.http.delete('/v1/pets/999999').set(t.user).set('If-Match', ifMatch),
          404,
          'PET_NOT_FOUND',
        );
      }
    });

    it('should answer 400 VALIDATION_ERROR naming If-Match when it is not a list of quoted tags', async () => {
      const id = await createPet(t);

      for (const ifMatch of ['abc', '"1.1", abc', '"1.1" "1.2"', `"${'1'.repeat(1100)}"`]) {
        const res = await t.http
          .put(`/v1/pets/${id}`)
          .set(t.user)
          .set('If-Match', ifMatch)
          .send({ age: 1 });
        expectValidationError(res, ['If-Match']);
      }
    });
  });

  // Categories and users are one row each: their ETag is the row version.
  let seq = 0;
  const oneRowResources = [
    {
      name: 'categories',
      reader: () => t.user,
      create: async () => {
        seq += 1;
        const res = await t.http
          .post('/v1/categories')
          .set(t.admin)
          .send({ name: `Conditional ${seq}` })
          .expect(201);
        return res.body.id as number;
      },
      change: { description: 'first' },
      field: 'description',
      missingCode: 'CATEGORY_NOT_FOUND',
    },
    {
      name: 'users',
      reader: () => t.admin,
      create: async () => {
        seq += 1;
        const res = await t.http
          .post('/v1/users')
          .set(t.admin)
          .send({
            username: `conditional${seq}`,
            email: `conditional${seq}@example.com`,
            password: 'a long enough password',
          })
          .expect(201);
        return res.body.id as number;
      },
      change: { firstName: 'Ada' },
      field: 'firstName',
      missingCode: 'USER_NOT_FOUND',
    },
  ];

  describe.each(oneRowResources)(
    '$name',
    ({ name, reader, create, change, field, missingCode }) => {
      const path = (id: number) => `/v1/${name}/${id}`;
      const get = (id: number) => t.http.get(path(id)).set(reader());

      it('should send an ETag, answer 304 to it, and change it with every PUT', async () => {
        const id = await create();
        const etag = etagOf(await get(id).expect(200));
        expect(etag).toMatch(STRONG_ETAG);
        await get(id).set('If-None-Match', etag).expect(304);

        const put = await t.http
          .put(path(id))
          .set(t.admin)
          .set('If-Match', etag)
          .send(change)
          .expect(200);

        expect(put.body).toMatchObject(change);
        expect(etagOf(put)).not.toBe(etag);
        expect(etagOf(await get(id).expect(200))).toBe(etagOf(put));
      });

      it('should answer 412 PRECONDITION_FAILED to a stale If-Match on PUT and DELETE', async () => {
        const id = await create();
        const stale = etagOf(await get(id).expect(200));
        const current = etagOf(await t.http.put(path(id)).set(t.admin).send(change).expect(200));

        const put = await t.http
          .put(path(id))
          .set(t.admin)
          .set('If-Match', stale)
          .send({ [field]: 'second' });
        const del = await t.http.delete(path(id)).set(t.admin).set('If-Match', stale);

        expect(put.status).toBe(412);
        expect(put.body).toEqual(errorBody('PRECONDITION_FAILED', { currentEtag: current }));
        expect(del.status).toBe(412);
        expect(del.body).toEqual(errorBody('PRECONDITION_FAILED', { currentEtag: current }));
        expect((await get(id).expect(200)).body).toMatchObject(change);
        await t.http.delete(path(id)).set(t.admin).set('If-Match', current).expect(200);
        await get(id).expect(404);
      });

      it('should answer 404 to a conditional write of a missing resource', async () => {
        const put = await t.http.put(path(999999)).set(t.admin).set('If-Match', '"1"').send(change);
        const del = await t.http.delete(path(999999)).set(t.admin).set('If-Match', '*');

        expectError(put, 404, missingCode);
        expectError(del, 404, missingCode);
      });
    },
  );
  // Node's fetch, like every browser, adds `Cache-Control: no-cache` to any request that
  // carries a conditional header; Express's own check refuses a 304 to it, docs/api.md not.
  describe('If-None-Match sent by fetch', () => {
    let baseUrl: string;

    beforeAll(async () => {
      await t.app.listen(0, '127.0.0.1');
      baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    });

    const singleResources = [
      { name: 'a pet', reader: () => t.user, path: async () => `/v1/pets/${await createPet(t)}` },
      {
        name: 'a category',
        reader: () => t.user,
        path: async () => `/v1/categories/${await oneRowResources[0].create()}`,
      },
      {
        name: 'a user',
        reader: () => t.admin,
        path: async () => `/v1/users/${await oneRowResources[1].create()}`,
      },
    ];

    const read = (path: string, headers: Record<string, string>, method = 'GET') =>
      fetch(`${baseUrl}${path}`, { method, headers });

    it.each(singleResources)(
      'should answer 304 with no body to GET and HEAD of $name holding its current ETag',
      async ({ reader, path: create }) => {
        const path = await create();
        const etag = (await read(path, reader())).headers.get('etag')!;
        expect(etag).toMatch(STRONG_ETAG);

        for (const method of ['GET', 'HEAD']) {
          const res = await read(path, { ...reader(), 'If-None-Match': etag }, method);
          expect({ method, status: res.status }).toEqual({ method, status: 304 });
          expect(await res.text()).toBe('');
          expect(res.headers.get('etag')).toBe(etag);
        }
      },
    );

    it.each(singleResources)(
      'should answer 304 to If-None-Match on $name whatever Cache-Control says',
      async ({ reader, path: create }) => {
        const path = await create();
        const etag = etagOf(await t.http.get(path).set(reader()).expect(200));

        for (const cacheControl of ['no-cache', 'max-age=0', 'no-cache, no-store']) {
          await t.http
            .get(path)
            .set(reader())
            .set('Cache-Control', cacheControl)
            .set('If-None-Match', etag)
            .expect(304);
        }
      },
    );

    it('should answer 200 with the body when the tag is stale, whatever If-Modified-Since says', async () => {
      const path = `/v1/pets/${await createPet(t)}`;
      const stale = (await read(path, t.user)).headers.get('etag')!;
      await t.http.put(path).set(t.user).send({ name: 'Fido' }).expect(200);
      const tomorrow = new Date(Date.now() + 86_400_000).toUTCString();

      const res = await read(path, {
        ...t.user,
        'If-None-Match': stale,
        'If-Modified-Since': tomorrow,
      });

      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: string }).name).toBe('Fido');
      expect(res.headers.get('etag')).not.toBe(stale);
    });

    it('should answer 200 to If-Modified-Since alone (the resources send no Last-Modified)', async () => {
      const path = `/v1/pets/${await createPet(t)}`;
      const tomorrow = new Date(Date.now() + 86_400_000).toUTCString();

      const res = await read(path, { ...t.user, 'If-Modified-Since': tomorrow });

      expect(res.status).toBe(200);
      expect(res.headers.get('last-modified')).toBeNull();
      expect(((await res.json()) as { name: string }).name).toBe('Rex');
    });
  });

  describe('what carries no ETag', () => {
    it('should send none with lists, creations and errors (no hash of the body)', async () => {
      const id = await createPet(t);
      const answers = [
        await t.http.get('/v1/pets').set(t.user).expect(200),
        await t.http.get('/v1/categories').set(t.user).expect(200),
        await t.http.get('/v1/users').set(t.admin).expect(200),
        await t.http.get('/v1/pets/inventory').set(t.user).expect(200),
        await t.http.post('/v1/categories').set(t.admin).send({ name: 'No ETag' }).expect(201),
        await t.http.get('/v1/pets/999999').set(t.user).expect(404),
        await t.http.delete(`/v1/pets/${id}`).set(t.user).expect(200),
      ];

      for (const res of answers) expect(res.headers.etag).toBeUndefined();
    });
  });
});
