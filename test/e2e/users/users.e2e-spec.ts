import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UsersService } from '../../../src/users/users.service.js';
import { apiKey, bearer, createApiKey, createUser, loginAs } from '../../support/auth.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { errorBody } from '../../support/errors.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const fieldsOf = (body: { details: { fields: { field: string }[] } }) =>
  body.details.fields.map((f) => f.field);

function userBody(fields: Record<string, unknown>) {
  return {
    id: expect.any(Number),
    userStatus: 0,
    role: 'user',
    createdAt: expect.stringMatching(ISO),
    updatedAt: expect.stringMatching(ISO),
    ...fields,
  };
}

let sequence = 0;
function newUser(fields: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    username: `u${sequence}.person`,
    email: `u${sequence}@example.com`,
    password: 'a long enough password',
    ...fields,
  };
}

describe('Users (e2e)', () => {
  let t: TestApp;
  let userKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    userKey = (await createApiKey(t, t.user)).key;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v1/users', () => {
    it('should create a user and return it without the password', async () => {
      const body = newUser({ firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0000' });
      const res = await t.http.post('/v1/users').set(t.admin).send(body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual(
        userBody({
          username: body.username,
          email: body.email,
          firstName: 'Ada',
          lastName: 'Lovelace',
          phone: '+44 20 7946 0000',
        }),
      );
    });

    it('should let an admin set role and userStatus', async () => {
      const body = newUser({ role: 'admin', userStatus: 2 });
      const res = await t.http.post('/v1/users').set(t.admin).send(body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual(
        userBody({ username: body.username, email: body.email, role: 'admin', userStatus: 2 }),
      );
    });

    it.each([
      ['a short username', { username: 'ab' }, 'username'],
      ['a long username', { username: 'a'.repeat(33) }, 'username'],
      ['a username with spaces', { username: 'a b c' }, 'username'],
      ['an invalid email', { email: 'not-an-email' }, 'email'],
      ['a short password', { password: 'short12' }, 'password'],
      ['a long password', { password: 'p'.repeat(129) }, 'password'],
      ['a long firstName', { firstName: 'f'.repeat(101) }, 'firstName'],
      ['a long phone', { phone: '1'.repeat(33) }, 'phone'],
      ['an unknown role', { role: 'root' }, 'role'],
      ['an unknown userStatus', { userStatus: 3 }, 'userStatus'],
      ['an id', { id: 99 }, 'id'],
      ['a passwordHash', { passwordHash: 'x' }, 'passwordHash'],
    ])('should refuse %s', async (_case, fields, field) => {
      const res = await t.http.post('/v1/users').set(t.admin).send(newUser(fields));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it('should refuse a missing password', async () => {
      const body: Record<string, unknown> = newUser();
      delete body.password;
      const res = await t.http.post('/v1/users').set(t.admin).send(body);
      expect(res.status).toBe(400);
    });

    it('should refuse a username taken in another case with CONFLICT', async () => {
      const body = newUser();
      await t.http.post('/v1/users').set(t.admin).send(body).expect(201);
      const res = await t.http
        .post('/v1/users')
        .set(t.admin)
        .send(newUser({ username: body.username.toUpperCase() }));
      expect(res.status).toBe(409);
      expect(res.body).toEqual(errorBody('CONFLICT', { field: 'username' }));
    });

    it('should refuse an email taken in another case with CONFLICT', async () => {
      const body = newUser();
      await t.http.post('/v1/users').set(t.admin).send(body).expect(201);
      const res = await t.http
        .post('/v1/users')
        .set(t.admin)
        .send(newUser({ email: body.email.toUpperCase() }));
      expect(res.status).toBe(409);
      expect(res.body).toEqual(errorBody('CONFLICT', { field: 'email' }));
    });

    it('should refuse a plain user and a plain user’s key', async () => {
      for (const headers of [t.user, apiKey(userKey)]) {
        const res = await t.http
          .post('/v1/users')
          .set(headers)
          .send(newUser({ role: 'admin' }));
        expect(res.status).toBe(403);
        expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
      }
    });

    it('should refuse a request without credentials', async () => {
      const res = await t.http.post('/v1/users').send(newUser());
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody('AUTHENTICATION_REQUIRED'));
    });
  });

  describe('GET /v1/users', () => {
    it('should list users with pagination and without passwords', async () => {
      const res = await t.http.get('/v1/users').set(t.admin);
      expect(res.status).toBe(200);
      const total = res.body.users.length;
      expect(res.body.pagination).toEqual({ limit: 100, offset: 0, total, hasMore: false });
      expect(res.body.users[0]).toEqual(
        userBody({
          id: t.adminUser.id,
          username: 'admin',
          email: 'admin@petstore.invalid',
          role: 'admin',
        }),
      );
      // firstName, lastName and phone appear only when set.
      const optional = ['firstName', 'lastName', 'phone'];
      for (const user of res.body.users) {
        expect(
          Object.keys(user)
            .filter((key) => !optional.includes(key))
            .sort(),
        ).toEqual(['createdAt', 'email', 'id', 'role', 'updatedAt', 'userStatus', 'username']);
      }
      expect(JSON.stringify(res.body)).not.toMatch(/argon2|password/i);
    });

    it('should page with limit and offset', async () => {
      const res = await t.http.get('/v1/users?limit=1&offset=1').set(t.admin);
      expect(res.status).toBe(200);
      expect(res.body.users).toEqual([
        userBody({ id: t.plainUser.id, username: 'plain.user', email: t.plainUser.email }),
      ]);
      expect(res.body.pagination).toEqual({
        limit: 1,
        offset: 1,
        total: expect.any(Number),
        hasMore: true,
      });
    });

    it.each(['limit=0', 'limit=101', 'offset=-1', 'limit=abc'])(
      'should refuse %s',
      async (query) => {
        const res = await t.http.get(`/v1/users?${query}`).set(t.admin);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      },
    );

    it('should refuse a plain user and a plain user’s key', async () => {
      for (const headers of [t.user, apiKey(userKey)]) {
        const res = await t.http.get('/v1/users').set(headers);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
      }
    });
  });

  describe('GET /v1/users/{id}', () => {
    it('should let a user read itself', async () => {
      const res = await t.http.get(`/v1/users/${t.plainUser.id}`).set(t.user);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        userBody({ id: t.plainUser.id, username: 'plain.user', email: t.plainUser.email }),
      );
    });

    it('should let an admin read anyone', async () => {
      const res = await t.http.get(`/v1/users/${t.plainUser.id}`).set(t.admin);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(t.plainUser.id);
    });

    it('should refuse a user reading someone else, existing or not', async () => {
      for (const id of [t.adminUser.id, 999999]) {
        const res = await t.http.get(`/v1/users/${id}`).set(t.user);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
      }
    });

    it('should answer 404 USER_NOT_FOUND and 400 for a malformed id', async () => {
      const missing = await t.http.get('/v1/users/999999').set(t.admin);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(errorBody('USER_NOT_FOUND'));
      const malformed = await t.http.get('/v1/users/abc').set(t.admin);
      expect(malformed.status).toBe(400);
    });
  });

  describe('PUT /v1/users/{id}', () => {
    it('should let a user update its own profile', async () => {
      const user = await createUser(t);
      const before = await t.http.get(`/v1/users/${user.id}`).set(user.headers);
      const res = await t.http
        .put(`/v1/users/${user.id}`)
        .set(user.headers)
        .send({ firstName: 'New', phone: '123' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        userBody({
          id: user.id,
          username: user.username,
          email: user.email,
          firstName: 'New',
          phone: '123',
          createdAt: before.body.createdAt,
        }),
      );
      expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(
        Date.parse(before.body.updatedAt),
      );
    });

    it('should let a user change its password with a bearer token', async () => {
      const user = await createUser(t);
      await t.http
        .put(`/v1/users/${user.id}`)
        .set(user.headers)
        .send({ password: 'a brand new password', currentPassword: user.password })
        .expect(200);
      await expect(loginAs(t, user.username, user.password)).rejects.toThrow('401');
      await loginAs(t, user.username, 'a brand new password');
    });

    it('should refuse a password change through an API key', async () => {
      const res = await t.http
        .put(`/v1/users/${t.plainUser.id}`)
        .set(apiKey(userKey))
        .send({ password: 'taken over password', currentPassword: t.plainUser.password });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
    });

    it.each([{ role: 'admin' }, { userStatus: 0 }, { role: 'user', firstName: 'x' }])(
      'should refuse a non-admin sending %j',
      async (body) => {
        for (const headers of [t.user, apiKey(userKey)]) {
          const res = await t.http.put(`/v1/users/${t.plainUser.id}`).set(headers).send(body);
          expect(res.status).toBe(403);
          expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
        }
        const self = await t.http.get(`/v1/users/${t.plainUser.id}`).set(t.user);
        expect(self.body.role).toBe('user');
      },
    );

    it.each([{ id: 1 }, { createdAt: '2020-01-01T00:00:00.000Z' }, { passwordHash: 'x' }])(
      'should refuse %j as an unknown field',
      async (body) => {
        const res = await t.http.put(`/v1/users/${t.plainUser.id}`).set(t.user).send(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      },
    );

    it('should refuse an empty body', async () => {
      const res = await t.http.put(`/v1/users/${t.plainUser.id}`).set(t.user).send({});
      expect(res.status).toBe(400);
    });

    it('should refuse a user updating someone else', async () => {
      const res = await t.http
        .put(`/v1/users/${t.adminUser.id}`)
        .set(t.user)
        .send({ firstName: 'x' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
    });

    // A user's own change to a taken address answers like a free one: e2e/users/accounts.
    it('should refuse an admin an email taken by another user with CONFLICT', async () => {
      const user = await createUser(t);
      const res = await t.http
        .put(`/v1/users/${user.id}`)
        .set(t.admin)
        .send({ email: t.plainUser.email.toUpperCase() });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(errorBody('CONFLICT', { field: 'email' }));
    });

    it('should let an admin promote a user, effective for its current token', async () => {
      const user = await createUser(t);
      await t.http.get('/v1/users').set(user.headers).expect(403);
      const res = await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ role: 'admin' });
      expect(res.status).toBe(200);
      expect(res.body.role).toBe('admin');
      await t.http.get('/v1/users').set(user.headers).expect(200);
    });

    it('should refuse an admin demoting or disabling itself', async () => {
      for (const body of [{ role: 'user' }, { userStatus: 1 }]) {
        const res = await t.http.put(`/v1/users/${t.adminUser.id}`).set(t.admin).send(body);
        expect(res.status).toBe(409);
        expect(res.body).toEqual(errorBody('CONFLICT'));
      }
    });

    it('should answer 404 for an admin updating an unknown user', async () => {
      const res = await t.http.put('/v1/users/999999').set(t.admin).send({ firstName: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(errorBody('USER_NOT_FOUND'));
    });
  });

  describe('disabling a user', () => {
    it('should stop its login, its token and its key', async () => {
      const user = await createUser(t);
      const { key } = await createApiKey(t, user.headers);
      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);

      const login = await t.http
        .post('/v1/auth/login')
        .send({ username: user.username, password: user.password });
      expect(login.status).toBe(401);
      expect(login.body).toEqual(errorBody('INVALID_CREDENTIALS'));
      const byToken = await t.http.get('/v1/pets').set(user.headers);
      expect(byToken.body).toEqual(errorBody('INVALID_TOKEN'));
      const byKey = await t.http.get('/v1/pets').set(apiKey(key));
      expect(byKey.body).toEqual(errorBody('INVALID_API_KEY'));

      await t.http.put(`/v1/users/${user.id}`).set(t.admin).send({ userStatus: 0 }).expect(200);
      await t.http.get('/v1/pets').set(apiKey(key)).expect(200);
      await t.http
        .get('/v1/pets')
        .set(bearer(await loginAs(t, user.username, user.password)))
        .expect(200);
    });
  });

  describe('DELETE /v1/users/{id}', () => {
    it('should delete a user', async () => {
      const user = await createUser(t);
      const res = await t.http.delete(`/v1/users/${user.id}`).set(t.admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      const again = await t.http.delete(`/v1/users/${user.id}`).set(t.admin);
      expect(again.status).toBe(404);
      expect(again.body).toEqual(errorBody('USER_NOT_FOUND'));
    });

    it('should refuse an admin deleting itself', async () => {
      const res = await t.http.delete(`/v1/users/${t.adminUser.id}`).set(t.admin);
      expect(res.status).toBe(409);
      expect(res.body).toEqual(errorBody('CONFLICT'));
    });

    it('should refuse a plain user, even deleting itself, and its key', async () => {
      for (const headers of [t.user, apiKey(userKey)]) {
        const res = await t.http.delete(`/v1/users/${t.plainUser.id}`).set(headers);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
      }
    });
  });

  describe('first admin bootstrap', () => {
    it('should create the first admin once, even when two instances race', async () => {
      const users = t.app.get(UsersService);
      expect(await users.ensureAdmin('other', 'other@example.com', 'whatever pass')).toBe(false);

      // Without any admin, two concurrent bootstraps create exactly one.
      await t.dataSource.query(`UPDATE users SET role = 'user' WHERE role = 'admin'`);
      try {
        const results = await Promise.all([
          users.ensureAdmin('racer', 'racer@example.com', 'racing password'),
          users.ensureAdmin('racer', 'racer@example.com', 'racing password'),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        const admins: unknown[] = await t.dataSource.query(
          `SELECT username FROM users WHERE role = 'admin'`,
        );
        expect(admins).toEqual([{ username: 'racer' }]);
      } finally {
        await t.dataSource.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [t.adminUser.id]);
        await t.dataSource.query(`DELETE FROM users WHERE username = 'racer'`);
      }
    });
  });
});
