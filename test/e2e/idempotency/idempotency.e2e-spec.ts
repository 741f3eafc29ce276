import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { IdempotencyService } from '../../../src/idempotency/idempotency.service.js';
import { createApiKey, createUser, type Headers } from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { jpegImage, pngImage } from '../../support/images.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { uploadImage } from '../../support/uploads.js';

const KEY = 'Idempotency-Key';
const newKey = () => `key-${randomUUID()}`;

/** Public: a key is kept per user, and these have none until they answer. */
const PUBLIC_AUTH_ROUTES = [
  '/v1/auth/login',
  // Login's second step: a caller is known once it answers.
  '/v1/auth/mfa/verify',
  // Passkey sign-in and the second step's options, likewise.
  '/v1/auth/mfa/passkey-options',
  '/v1/auth/passkeys/login-options',
  '/v1/auth/passkeys/login',
  '/v1/auth/refresh',
  '/v1/auth/logout',
  '/v1/auth/register',
  '/v1/auth/verify-email',
  '/v1/auth/resend-verification',
  '/v1/auth/forgot-password',
  '/v1/auth/reset-password',
];

describe('Idempotency-Key on POST (e2e)', () => {
  let t: TestApp;
  let categoryId: number;
  let categoryName: string;

  const createPetWith = (key: string, body: Record<string, unknown>, as: Headers = t.user) =>
    t.http.post('/v1/pets').set(as).set(KEY, key).send(body);
  const petBody = (fields: Record<string, unknown> = {}) => ({
    name: 'Rex',
    categoryId,
    status: 'available',
    ...fields,
  });
  const petsInCategory = async () =>
    (await t.http.get('/v1/pets').query({ category: categoryName }).set(t.user).expect(200)).body
      .pagination.total as number;
  const expectReplayOf = (replay: Response, first: Response) => {
    expect(replay.status).toBe(first.status);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(replay.body).toEqual(first.body);
  };
  /** The key's row as stored, as another instance would find it. */
  const setKeyRow = (key: string, assignments: string) =>
    t.dataSource.query(`UPDATE idempotency_keys SET ${assignments} WHERE key = $1`, [key]);

  beforeAll(async () => {
    t = await createTestApp();
    categoryName = `Idempotent ${randomUUID()}`;
    const category = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: categoryName })
      .expect(201);
    categoryId = category.body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v1/pets', () => {
    it('should replay the first response to a retry, and create the pet once', async () => {
      const before = await petsInCategory();
      const key = newKey();

      const first = await createPetWith(key, petBody());
      const retry = await createPetWith(key, petBody());

      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expectReplayOf(retry, first);
      expect(await petsInCategory()).toBe(before + 1);
      await t.http.get(`/v1/pets/${first.body.id}`).set(t.user).expect(200, first.body);
    });

    it('should take a retry whose JSON differs only in key order and spacing for the same request', async () => {
      const key = newKey();
      const first = await createPetWith(key, petBody({ tags: ['a', 'b'] }));

      const retry = await t.http
        .post('/v1/pets')
        .set(t.user)
        .set(KEY, key)
        .set('Content-Type', 'application/json')
        .send(
          `{ "tags": ["a", "b"], "status": "available", "categoryId": ${categoryId},  "name": "Rex" }`,
        );

      expectReplayOf(retry, first);
    });

    it('should answer 422 IDEMPOTENCY_KEY_REUSED to the same key with another body, and do nothing', async () => {
      const key = newKey();
      await createPetWith(key, petBody()).expect(201);
      const before = await petsInCategory();

      const res = await createPetWith(key, petBody({ name: 'Max' }));

      expectError(res, 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(await petsInCategory()).toBe(before);
    });

    it('should keep no validation failure: the same key with the corrected body runs', async () => {
      const key = newKey();
      const refused = await createPetWith(key, petBody({ status: 'lost' }));
      expectValidationError(refused, ['status']);

      const corrected = await createPetWith(key, petBody());
      expect(corrected.status).toBe(201);
      expect(corrected.headers['idempotent-replayed']).toBeUndefined();
      expectReplayOf(await createPetWith(key, petBody()), corrected);
    });

    it('should scope a key to its caller: another user with the same key gets a pet of its own', async () => {
      const other = await createUser(t);
      const key = newKey();

      const mine = await createPetWith(key, petBody()).expect(201);
      const theirs = await createPetWith(key, petBody(), other.headers).expect(201);

      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it('should scope a key to the user behind the credential, bearer token or API key', async () => {
      const apiKey = await createApiKey(t, t.user);
      const key = newKey();

      const withToken = await createPetWith(key, petBody()).expect(201);
      const withKey = await createPetWith(key, petBody(), { 'X-API-Key': apiKey.key });

      expectReplayOf(withKey, withToken);
    });

    it('should scope a key to its operation: the same key creates a pet and a category', async () => {
      const key = newKey();

      const pet = await createPetWith(key, petBody(), t.admin);
      const category = await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set(KEY, key)
        .send({ name: `Scoped ${randomUUID()}` });

      expect([pet.status, category.status]).toEqual([201, 201]);
      expect(category.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('the header', () => {
    it.each([
      ['empty', ''],
      ['longer than 255 characters', 'k'.repeat(256)],
      ['holding a tab', 'a\tb'],
      ['holding a character beyond ASCII', 'clé'],
    ])('should answer 400 VALIDATION_ERROR naming Idempotency-Key when %s', async (_, value) => {
      const before = await petsInCategory();

      const res = await createPetWith(value, petBody());

      expectValidationError(res, [KEY]);
      expect(await petsInCategory()).toBe(before);
    });

    it('should take 255 printable ASCII characters, spaces and symbols included', async () => {
      const key = `${newKey()} !"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`.padEnd(255, 'x');

      const first = await createPetWith(key, petBody()).expect(201);

      expectReplayOf(await createPetWith(key, petBody()), first);
    });

    it('should leave a POST without the header unchanged: every request creates', async () => {
      const before = await petsInCategory();

      await t.http.post('/v1/pets').set(t.user).send(petBody()).expect(201);
      const second = await t.http.post('/v1/pets').set(t.user).send(petBody()).expect(201);

      expect(second.headers['idempotent-replayed']).toBeUndefined();
      expect(await petsInCategory()).toBe(before + 2);
    });
  });

  describe('stored errors', () => {
    it('should replay a 409 CONFLICT as it was, even once the name is free', async () => {
      const name = `Taken ${randomUUID()}`;
      const taken = await t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201);
      const key = newKey();
      const create = () => t.http.post('/v1/categories').set(t.admin).set(KEY, key).send({ name });

      const first = await create();
      expectError(first, 409, 'CONFLICT');
      await t.http.delete(`/v1/categories/${taken.body.id}`).set(t.admin).expect(200);
      const retry = await create();

      expectError(retry, 409, 'CONFLICT');
      expect(retry.headers['idempotent-replayed']).toBe('true');
      // The same error; its requestId is this request's, as on every error.
      expect(retry.body).toEqual({ ...first.body, requestId: retry.headers['x-request-id'] });
      expect(retry.body.requestId).not.toBe(first.body.requestId);
      const names = (await t.http.get('/v1/categories').set(t.admin).expect(200)).body
        .categories as { name: string }[];
      expect(names.filter((c) => c.name === name)).toEqual([]);
    });

    it('should replay a 404 PET_NOT_FOUND of an upload to a pet that does not exist', async () => {
      const image = await pngImage(20, 20);
      const key = newKey();
      const upload = () =>
        uploadImage(t, 999_999_999, image, { contentType: 'image/png' }).set(KEY, key);

      const first = await upload();
      const retry = await upload();

      expectError(first, 404, 'PET_NOT_FOUND');
      expectError(retry, 404, 'PET_NOT_FOUND');
      expect(retry.headers['idempotent-replayed']).toBe('true');
    });
  });

  describe('POST /v1/pets/{petId}/upload-image', () => {
    it('should replay an upload, storing the image once', async () => {
      const petId = await createPet(t);
      const image = await pngImage(30, 20);
      const key = newKey();
      const upload = () =>
        uploadImage(t, petId, image, { contentType: 'image/png', description: 'Side' }).set(
          KEY,
          key,
        );

      const first = await upload();
      const retry = await upload();

      expect(first.status).toBe(201);
      expectReplayOf(retry, first);
      const images = await t.http.get(`/v1/pets/${petId}/images`).set(t.user).expect(200);
      expect(images.body.images).toHaveLength(1);
    });

    it('should answer 422 to the same key with other bytes, another description or another pet', async () => {
      const petId = await createPet(t);
      const otherPetId = await createPet(t);
      const image = await pngImage(30, 20);
      const key = newKey();
      const upload = (pet: number, bytes: Buffer, description?: string) =>
        uploadImage(t, pet, bytes, { contentType: 'image/png', description }).set(KEY, key);
      await upload(petId, image).expect(201);

      const refusals = [
        await upload(petId, await jpegImage(30, 20)),
        await upload(petId, image, 'Another'),
        await upload(otherPetId, image),
      ];

      for (const res of refusals) expectError(res, 422, 'IDEMPOTENCY_KEY_REUSED');
      const images = await t.http.get(`/v1/pets/${otherPetId}/images`).set(t.user).expect(200);
      expect(images.body.images).toEqual([]);
    });
  });

  describe('POST /v1/api-keys', () => {
    it('should replay a creation without the key, which is never stored, and create one key', async () => {
      const user = await createUser(t);
      const key = newKey();
      const create = () =>
        t.http
          .post('/v1/api-keys')
          .set(user.headers)
          .set(KEY, key)
          .send({ name: 'ci', mode: 'test' });

      const first = await create();
      const retry = await create();

      expect(first.status).toBe(201);
      expect(first.body.key).toMatch(/^pk_test_/);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      const { key: secret, ...record } = first.body as Record<string, unknown>;
      expect(retry.body).toEqual(record);
      const list = await t.http.get('/v1/api-keys').set(user.headers).expect(200);
      expect((list.body.apiKeys as { id: number }[]).map((k) => k.id)).toEqual([first.body.id]);
      const stored = await t.dataSource.query<{ operation: string; row: string }[]>(
        'SELECT operation, k::text AS row FROM idempotency_keys k WHERE key = $1',
        [key],
      );
      expect(stored).toEqual([{ operation: 'POST /v1/api-keys', row: expect.any(String) }]);
      expect(stored[0].row).not.toContain(String(secret));
    });
  });

  describe('keys in flight and expired', () => {
    it('should answer 409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After while another instance holds the key, and take a dead instance’s key over after its lease', async () => {
      const key = newKey();
      const first = await createPetWith(key, petBody()).expect(201);
      // As another instance leaves it while it works on the request...
      await setKeyRow(
        key,
        `response_status = NULL, response_headers = NULL, response_body = NULL,
         locked_until = now() + interval '1 minute'`,
      );

      const meanwhile = await createPetWith(key, petBody());

      expectError(meanwhile, 409, 'IDEMPOTENCY_KEY_IN_PROGRESS');
      expect(meanwhile.headers['retry-after']).toBe('1');
      expectError(
        await createPetWith(key, petBody({ name: 'Max' })),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );

      // ...and as it stays once that instance died: past the lease, the retry runs.
      await setKeyRow(key, `locked_until = now() - interval '1 second'`);
      const takenOver = await createPetWith(key, petBody());

      expect(takenOver.status).toBe(201);
      expect(takenOver.headers['idempotent-replayed']).toBeUndefined();
      expect(takenOver.body.id).not.toBe(first.body.id);
      expectReplayOf(await createPetWith(key, petBody()), takenOver);
    });

    it('should forget a key after 24 hours, and remove expired keys in bulk', async () => {
      const key = newKey();
      await createPetWith(key, petBody()).expect(201);
      await setKeyRow(key, `expires_at = now() - interval '1 second'`);

      const reused = await createPetWith(key, petBody({ name: 'Max' }));

      expect(reused.status).toBe(201);
      expect(reused.headers['idempotent-replayed']).toBeUndefined();
      expect(reused.body.name).toBe('Max');

      const expired = [newKey(), newKey(), newKey()];
      for (const k of expired) await createPetWith(k, petBody()).expect(201);
      await t.dataSource.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = ANY($1)`,
        [expired],
      );
      const count = async () =>
        (
          await t.dataSource.query<{ n: number }[]>(
            'SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ANY($1)',
            [[...expired, key]],
          )
        )[0].n;
      expect(await count()).toBe(4);

      expect(await t.app.get(IdempotencyService).removeExpired()).toBeGreaterThanOrEqual(3);

      expect(await count()).toBe(1);
    });
  });

  it('should document the header on every POST under /v1 but the public auth routes', async () => {
    const document = (await t.http.get('/v1/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const posts = Object.entries(document.paths).flatMap(([path, item]) =>
      item.post ? [[path, item.post] as const] : [],
    );

    const withHeader = posts
      .filter(([, op]) => op.parameters?.some((p) => p.in === 'header' && p.name === KEY))
      .map(([path]) => path);

    expect(withHeader.sort()).toEqual(
      posts
        .map(([path]) => path)
        .filter((path) => !PUBLIC_AUTH_ROUTES.includes(path))
        .sort(),
    );
    expect(withHeader).toEqual(
      expect.arrayContaining([
        '/v1/pets',
        '/v1/categories',
        '/v1/users',
        '/v1/api-keys',
        '/v1/pets/{petId}/upload-image',
      ]),
    );
  });
});
