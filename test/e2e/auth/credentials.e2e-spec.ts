import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKey, bearer, createApiKey, createUser, loginAs } from '../../support/auth.js';
import { errorBody, expectError, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const KEYS_PER_USER = 3;
// Short, so that a change made on one instance shows on the other within the test.
const CACHE_TTL_MS = 300;

// A second instance needs a database server: PGlite keeps its data directory to one instance.
const onServer = process.env.DATABASE_URL ? it : it.skip;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the start of a wall-clock second, so that what follows happens within it. */
async function startOfSecond(): Promise<void> {
  await sleep(1000 - (Date.now() % 1000));
}

describe('Credentials (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      API_KEYS_PER_USER: String(KEYS_PER_USER),
      ACCESS_STATE_CACHE_TTL_MS: String(CACHE_TTL_MS),
    });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('API keys per user', () => {
    it('should refuse one key more than API_KEYS_PER_USER with 409 API_KEY_LIMIT_REACHED', async () => {
      const owner = await createUser(t);
      const keys = [];
      for (let i = 0; i < KEYS_PER_USER; i++) keys.push(await createApiKey(t, owner.headers));
      const res = await t.http
        .post('/v1/api-keys')
        .set(owner.headers)
        .send({ name: 'one more', mode: 'test' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(errorBody('API_KEY_LIMIT_REACHED', { limit: KEYS_PER_USER }));
      // Another user's keys are counted apart, and a revoked key frees its place.
      await createApiKey(t, (await createUser(t)).headers);
      await t.http.delete(`/v1/api-keys/${keys[0].id}`).set(owner.headers).expect(200);
      await createApiKey(t, owner.headers);
    });

    it('should hold the limit under concurrent creates', async () => {
      const owner = await createUser(t);
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          t.http
            .post('/v1/api-keys')
            .set(owner.headers)
            .send({ name: `race ${i}`, mode: 'test' }),
        ),
      );
      const statuses = responses.map((res) => res.status).sort();
      expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
      const rows: unknown[] = await t.dataSource.query(
        'SELECT id FROM api_keys WHERE user_id = $1',
        [owner.id],
      );
      expect(rows).toHaveLength(KEYS_PER_USER);
    });

    it('should page GET /v1/api-keys as GET /v1/users is paged', async () => {
      const owner = await createUser(t);
      const created = [];
      for (const name of ['first', 'second', 'third']) {
        created.push(await createApiKey(t, owner.headers, 'test', name));
      }
      const all = await t.http.get('/v1/api-keys').set(owner.headers).expect(200);
      expect(all.body.pagination).toEqual({ limit: 100, offset: 0, total: 3, hasMore: false });
      const page = await t.http.get('/v1/api-keys?limit=1&offset=1').set(owner.headers).expect(200);
      expect(page.body).toEqual({
        apiKeys: [expect.objectContaining({ id: created[1].id, name: 'second' })],
        pagination: { limit: 1, offset: 1, total: 3, hasMore: true },
      });
      for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=1.5']) {
        const field = query.split('=')[0];
        expectValidationError(await t.http.get(`/v1/api-keys?${query}`).set(owner.headers), [
          field,
        ]);
      }
      expectValidationError(await t.http.get('/v1/api-keys?page=2').set(owner.headers), ['page']);
    });
  });

  describe('tokens issued before a password change or a disable', () => {
    it('should refuse a token issued before its own password change, and accept a new login', async () => {
      const owner = await createUser(t);
      await t.http.get('/v1/pets').set(owner.headers).expect(200);
      // The change and the new login fall in one second, as does the old token with luck:
      // whole-second `iat` must neither keep the old token nor refuse the new one.
      await startOfSecond();
      const early = await loginAs(t, owner.username, owner.password);
      await t.http
        .put(`/v1/users/${owner.id}`)
        .set(owner.headers)
        .send({ password: 'a brand new password', currentPassword: owner.password })
        .expect(200);
      const fresh = await loginAs(t, owner.username, 'a brand new password');
      for (const old of [owner.headers, bearer(early)]) {
        const res = await t.http.get('/v1/pets').set(old);
        expectError(res, 401, 'INVALID_TOKEN');
        expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
      }
      await t.http.get('/v1/pets').set(bearer(fresh)).expect(200);
      await t.http.get(`/v1/users/${owner.id}`).set(bearer(fresh)).expect(200);
    });

    it('should refuse tokens issued before an admin sets a new password', async () => {
      const owner = await createUser(t);
      await t.http
        .put(`/v1/users/${owner.id}`)
        .set(t.admin)
        .send({ password: 'reset by the admin' })
        .expect(200);
      expectError(await t.http.get('/v1/pets').set(owner.headers), 401, 'INVALID_TOKEN');
      await t.http
        .get('/v1/pets')
        .set(bearer(await loginAs(t, owner.username, 'reset by the admin')))
        .expect(200);
    });

    it('should refuse a token issued before a disable, even once the account is enabled again', async () => {
      const owner = await createUser(t);
      await t.http.get('/v1/pets').set(owner.headers).expect(200);
      await t.http.put(`/v1/users/${owner.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);
      await t.http.put(`/v1/users/${owner.id}`).set(t.admin).send({ userStatus: 0 }).expect(200);
      expectError(await t.http.get('/v1/pets').set(owner.headers), 401, 'INVALID_TOKEN');
      const fresh = await loginAs(t, owner.username, owner.password);
      await t.http.get('/v1/pets').set(bearer(fresh)).expect(200);
    });

    it('should keep tokens working across other changes', async () => {
      const owner = await createUser(t);
      await t.http
        .put(`/v1/users/${owner.id}`)
        .set(owner.headers)
        .send({ firstName: 'Ada' })
        .expect(200);
      await t.http.put(`/v1/users/${owner.id}`).set(t.admin).send({ userStatus: 0 }).expect(200);
      await t.http.get('/v1/pets').set(owner.headers).expect(200);
    });

    it("should revoke the user's API keys on a password change", async () => {
      const owner = await createUser(t);
      const { key } = await createApiKey(t, owner.headers);
      await t.http.get('/v1/pets').set(apiKey(key)).expect(200);
      await t.http
        .put(`/v1/users/${owner.id}`)
        .set(owner.headers)
        .send({ password: 'a brand new password', currentPassword: owner.password })
        .expect(200);
      expectError(await t.http.get('/v1/pets').set(apiKey(key)), 401, 'INVALID_API_KEY');
      const fresh = bearer(await loginAs(t, owner.username, 'a brand new password'));
      const list = await t.http.get('/v1/api-keys').set(fresh).expect(200);
      expect(list.body.apiKeys).toEqual([]);
    });
  });

  describe('role and status take a bearer token', () => {
    let adminKey: Record<string, string>;

    beforeAll(async () => {
      adminKey = apiKey((await createApiKey(t, t.admin)).key);
    });

    it("should refuse an admin's API key creating a user with a role", async () => {
      for (const role of ['admin', 'user']) {
        const res = await t.http
          .post('/v1/users')
          .set(adminKey)
          .send({
            username: `keyed_${role}`,
            email: `keyed_${role}@example.com`,
            password: 'correct horse battery',
            role,
          });
        expectError(res, 403, 'INSUFFICIENT_PERMISSIONS');
      }
      const rows: unknown[] = await t.dataSource.query(
        "SELECT id FROM users WHERE username LIKE 'keyed\\_%'",
      );
      expect(rows).toEqual([]);
      // Without a role the key may create a user, who then has the user role.
      const plain = await t.http.post('/v1/users').set(adminKey).send({
        username: 'keyed_plain',
        email: 'keyed_plain@example.com',
        password: 'correct horse battery',
      });
      expect(plain.status).toBe(201);
      expect(plain.body.role).toBe('user');
    });

    it.each([{ role: 'admin' }, { role: 'user' }, { userStatus: 1 }, { userStatus: 0 }])(
      "should refuse an admin's API key changing %j",
      async (change) => {
        const target = await createUser(t);
        const res = await t.http.put(`/v1/users/${target.id}`).set(adminKey).send(change);
        expectError(res, 403, 'INSUFFICIENT_PERMISSIONS');
        const row = await t.http.get(`/v1/users/${target.id}`).set(t.admin).expect(200);
        expect(row.body).toMatchObject({ role: 'user', userStatus: 0 });
        await t.http.put(`/v1/users/${target.id}`).set(t.admin).send(change).expect(200);
      },
    );

    it("should still let an admin's API key change other fields", async () => {
      const target = await createUser(t);
      const res = await t.http
        .put(`/v1/users/${target.id}`)
        .set(adminKey)
        .send({ firstName: 'Bo' });
      expect(res.status).toBe(200);
      expect(res.body.firstName).toBe('Bo');
    });
  });

  // Two instances in one process cannot share PGlite's data directory, and closing one
  // closes what they share: these two are made for this test and closed together.
  onServer(
    'should refuse the old token on another instance within ACCESS_STATE_CACHE_TTL_MS',
    async () => {
      const env = {
        API_KEYS_PER_USER: String(KEYS_PER_USER),
        ACCESS_STATE_CACHE_TTL_MS: String(CACHE_TTL_MS),
      };
      const first = await createTestApp(env);
      const second = await createTestApp(env, { database: first.database });
      try {
        const owner = await createUser(first);
        // The second instance has read (and cached) the account before the change.
        await second.http.get('/v1/pets').set(owner.headers).expect(200);
        await first.http
          .put(`/v1/users/${owner.id}`)
          .set(owner.headers)
          .send({ password: 'a brand new password', currentPassword: owner.password })
          .expect(200);
        await sleep(CACHE_TTL_MS + 100);
        expectError(await second.http.get('/v1/pets').set(owner.headers), 401, 'INVALID_TOKEN');
        const fresh = bearer(await loginAs(second, owner.username, 'a brand new password'));
        await first.http.get('/v1/pets').set(fresh).expect(200);
      } finally {
        await second.close();
        await first.close();
      }
    },
  );
});
