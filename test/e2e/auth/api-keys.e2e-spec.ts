import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateApiKey, hashApiKey } from '../../../src/auth/api-key-format.js';
import { ROLE_SCOPES } from '../../../src/common/types/api-key-scope.js';
import { apiKey, createApiKey, createUser } from '../../support/auth.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const KEY_CHALLENGE = 'ApiKey header="X-API-Key"';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const fieldsOf = (body: { details: { fields: { field: string }[] } }) =>
  body.details.fields.map((f) => f.field);

function errorBody(code: string) {
  return { code, message: expect.any(String), requestId: expect.any(String) };
}

async function expectInvalidKey(t: TestApp, key: string): Promise<void> {
  const res = await t.http.get('/v1/pets').set(apiKey(key));
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe(KEY_CHALLENGE);
  expect(res.body).toEqual(errorBody('INVALID_API_KEY'));
}

/** lastUsedAt is written off the request's path: wait until it shows. */
async function lastUsedAtOf(t: TestApp, id: number, headers: Record<string, string>) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await t.http.get('/v1/api-keys').set(headers);
    const keys = res.body.apiKeys as { id: number; lastUsedAt: string | null }[];
    const lastUsedAt = keys.find((k) => k.id === id)?.lastUsedAt;
    if (lastUsedAt) return lastUsedAt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}

describe('API keys (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v1/api-keys', () => {
    it.each(['live', 'test'])('should create a %s key and show it once', async (mode) => {
      const res = await t.http.post('/v1/api-keys').set(t.user).send({ name: 'CI', mode });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'CI',
        mode,
        prefix: String(res.body.key).slice(0, 12),
        scopes: ROLE_SCOPES.user,
        key: expect.stringMatching(new RegExp(`^pk_${mode}_[0-9A-Za-z]{38}$`)),
        createdAt: expect.stringMatching(ISO),
        expiringSoon: false,
        lastUsedAt: null,
      });
      expect(res.body.prefix).toMatch(new RegExp(`^pk_${mode}_`));
    });

    it('should forbid storing the answer that shows the key, and its replay by Idempotency-Key', async () => {
      const create = () =>
        t.http
          .post('/v1/api-keys')
          .set(t.user)
          .set('Idempotency-Key', 'no-store-check')
          .send({ name: 'cached?', mode: 'test' });

      const first = await create().expect(201);
      const replay = await create().expect(201);

      expect(first.headers['cache-control']).toBe('no-store');
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['cache-control']).toBe('no-store');
    });

    it.each([
      [{ name: '', mode: 'live' }, 'name'],
      [{ name: 'x'.repeat(101), mode: 'live' }, 'name'],
      [{ name: 'CI', mode: 'prod' }, 'mode'],
      [{ name: 'CI' }, 'mode'],
      [{ name: 'CI', mode: 'live', userId: 1 }, 'userId'],
    ])('should refuse %j', async (body, field) => {
      const res = await t.http.post('/v1/api-keys').set(t.user).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(fieldsOf(res.body)).toContain(field);
    });
  });

  describe('GET /v1/api-keys', () => {
    it("should list only the caller's own keys, without the key", async () => {
      const owner = await createUser(t);
      const created = await createApiKey(t, owner.headers, 'live', 'deploy');
      await createApiKey(t, t.admin, 'live', 'admin key');
      const res = await t.http.get('/v1/api-keys').set(owner.headers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        apiKeys: [
          {
            id: created.id,
            name: 'deploy',
            mode: 'live',
            prefix: created.prefix,
            scopes: ROLE_SCOPES.user,
            createdAt: expect.stringMatching(ISO),
            expiringSoon: false,
            lastUsedAt: null,
          },
        ],
        pagination: { limit: 100, offset: 0, total: 1, hasMore: false },
      });
    });
  });

  describe('using a key', () => {
    it('should act as its owner with the owner\u2019s role', async () => {
      const userKey = await createApiKey(t, t.user);
      const adminKey = await createApiKey(t, t.admin);
      await t.http.get('/v1/pets').set(apiKey(userKey.key)).expect(200);
      const asUser = await t.http
        .post('/v1/categories')
        .set(apiKey(userKey.key))
        .send({ name: 'Key birds' });
      expect(asUser.status).toBe(403);
      expect(asUser.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
      const asAdmin = await t.http
        .post('/v1/categories')
        .set(apiKey(adminKey.key))
        .send({ name: 'Key birds' });
      expect(asAdmin.status).toBe(201);
      const self = await t.http.get(`/v1/users/${t.plainUser.id}`).set(apiKey(userKey.key));
      expect(self.status).toBe(200);
      expect(self.body.username).toBe(t.plainUser.username);
    });

    it('should record lastUsedAt, at most once a minute', async () => {
      const created = await createApiKey(t, t.user);
      await t.http.get('/v1/pets').set(apiKey(created.key)).expect(200);
      const first = await lastUsedAtOf(t, created.id, t.user);
      expect(first).toMatch(ISO);
      await t.http.get('/v1/pets').set(apiKey(created.key)).expect(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await lastUsedAtOf(t, created.id, t.user)).toBe(first);
    });

    it('should refuse a malformed key without a look-up', async () => {
      await expectInvalidKey(t, 'not-a-key');
      await expectInvalidKey(t, 'pk_live_short');
    });

    it('should refuse a key with a wrong checksum', async () => {
      const { key } = await createApiKey(t, t.user);
      const last = key.at(-1) === 'a' ? 'b' : 'a';
      await expectInvalidKey(t, key.slice(0, -1) + last);
    });

    it('should refuse a well-formed key that was never issued', async () => {
      await expectInvalidKey(t, generateApiKey('live'));
    });

    it('should refuse API keys on key management, even valid ones', async () => {
      const { id, key } = await createApiKey(t, t.user);
      const requests = [
        t.http.get('/v1/api-keys').set(apiKey(key)),
        t.http.post('/v1/api-keys').set(apiKey(key)).send({ name: 'minted', mode: 'live' }),
        t.http.delete(`/v1/api-keys/${id}`).set(apiKey(key)),
      ];
      for (const res of await Promise.all(requests)) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
      }
      const list = await t.http.get('/v1/api-keys').set(t.user);
      const names = (list.body.apiKeys as { name: string }[]).map((k) => k.name);
      expect(names).not.toContain('minted');
    });
  });

  describe('both headers', () => {
    it('should accept a valid token and a valid key, identified by the token', async () => {
      const { key } = await createApiKey(t, t.user);
      const res = await t.http.get('/v1/api-keys').set(t.user).set(apiKey(key));
      expect(res.status).toBe(200);
    });

    it('should refuse a valid token with an invalid key', async () => {
      const res = await t.http
        .get('/v1/pets')
        .set(t.user)
        .set(apiKey(generateApiKey('live')));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody('INVALID_API_KEY'));
    });

    it('should refuse an invalid token with a valid key', async () => {
      const { key } = await createApiKey(t, t.user);
      const res = await t.http
        .get('/v1/pets')
        .set('Authorization', 'Bearer not.a.token')
        .set(apiKey(key));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody('INVALID_TOKEN'));
    });
  });

  describe('DELETE /v1/api-keys/{id}', () => {
    it('should revoke a key at once', async () => {
      const { id, key } = await createApiKey(t, t.user);
      await t.http.get('/v1/pets').set(apiKey(key)).expect(200);
      const res = await t.http.delete(`/v1/api-keys/${id}`).set(t.user);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      await expectInvalidKey(t, key);
    });

    it("should answer 404 for someone else's key and leave it working", async () => {
      const { id, key } = await createApiKey(t, t.admin);
      const res = await t.http.delete(`/v1/api-keys/${id}`).set(t.user);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(errorBody('API_KEY_NOT_FOUND'));
      await t.http.get('/v1/pets').set(apiKey(key)).expect(200);
    });

    it('should answer 404 for an unknown key and 400 for a malformed id', async () => {
      const missing = await t.http.delete('/v1/api-keys/999999').set(t.user);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(errorBody('API_KEY_NOT_FOUND'));
      const malformed = await t.http.delete('/v1/api-keys/abc').set(t.user);
      expect(malformed.status).toBe(400);
    });
  });

  describe('owner accounts', () => {
    it("should stop a disabled user's key at once", async () => {
      const owner = await createUser(t);
      const { key } = await createApiKey(t, owner.headers);
      await t.http.get('/v1/pets').set(apiKey(key)).expect(200);
      await t.http.put(`/v1/users/${owner.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);
      await expectInvalidKey(t, key);
    });

    it("should revoke a deleted user's keys", async () => {
      const owner = await createUser(t);
      const { id, key } = await createApiKey(t, owner.headers);
      await t.http.delete(`/v1/users/${owner.id}`).set(t.admin).expect(200);
      await expectInvalidKey(t, key);
      const rows: unknown[] = await t.dataSource.query('SELECT id FROM api_keys WHERE id = $1', [
        id,
      ]);
      expect(rows).toEqual([]);
    });
  });

  describe('with API_KEY_MODES=live', () => {
    let live: TestApp;

    beforeAll(async () => {
      live = await createTestApp({ API_KEY_MODES: 'live' });
    });
    afterAll(async () => {
      await live.close();
    });

    it('should refuse a test key with INVALID_API_KEY', async () => {
      const key = generateApiKey('test');
      await live.dataSource.query(
        `INSERT INTO api_keys (user_id, name, mode, prefix, key_hash) VALUES ($1, 'old', 'test', $2, $3)`,
        [live.plainUser.id, key.slice(0, 12), hashApiKey(key)],
      );
      await expectInvalidKey(live, key);
    });

    it('should accept a live key', async () => {
      const { key } = await createApiKey(live, live.user, 'live');
      await live.http.get('/v1/pets').set(apiKey(key)).expect(200);
    });

    it('should refuse to create a test key', async () => {
      const res = await live.http
        .post('/v1/api-keys')
        .set(live.user)
        .send({ name: 'x', mode: 'test' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual({
        fields: [{ field: 'mode', message: 'must be one of: live' }],
      });
    });
  });
});
