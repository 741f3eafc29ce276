import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKey, createApiKey, createUser, loginAs, type CreatedUser } from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const LOCKOUT_FAILURES = 3;

// docs/identity.md, Users and roles: a user changing its own password, email or username
// confirms it with its current password, so that a stolen token (or key) alone cannot take
// the account over.
describe('Own password, email and username changes take currentPassword (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      LOGIN_LOCKOUT_FAILURES: String(LOCKOUT_FAILURES),
      LOGIN_LOCKOUT_SECONDS: '60',
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const changesOf = (user: { username: string }) => ({
    password: { password: 'a brand new password' },
    email: { email: `new.${user.username}@example.com` },
    username: { username: `new.${user.username}` },
  });
  const FIELDS = ['password', 'email', 'username'] as const;
  const put = (id: number, headers: Record<string, string>, body: Record<string, unknown>) =>
    t.http.put(`/v1/users/${id}`).set(headers).send(body);
  const login = (username: string, password: string) =>
    t.http.post('/v1/auth/login').send({ username, password });

  /** The account as it was: same username and email, and its password still logs in. */
  async function expectUnchanged(user: CreatedUser) {
    const row = await t.http.get(`/v1/users/${user.id}`).set(t.admin).expect(200);
    expect(row.body).toMatchObject({ username: user.username, email: user.email });
    await loginAs(t, user.username, user.password);
  }

  describe('PUT /v1/users/{id} on itself', () => {
    it.each(FIELDS)(
      'should refuse a change of its own %s without currentPassword, naming it',
      async (field) => {
        const user = await createUser(t);

        const res = await put(user.id, user.headers, changesOf(user)[field]);

        expectValidationError(res, ['currentPassword']);
        await expectUnchanged(user);
      },
    );

    it.each(FIELDS)(
      'should refuse a change of its own %s with a wrong currentPassword: 403 INVALID_CURRENT_PASSWORD',
      async (field) => {
        const user = await createUser(t);
        const wrong = 'not my password at all';

        const res = await put(user.id, user.headers, {
          ...changesOf(user)[field],
          currentPassword: wrong,
        });

        expectError(res, 403, 'INVALID_CURRENT_PASSWORD');
        expect(res.text).not.toContain(wrong);
        await expectUnchanged(user);
      },
    );

    it('should change its own password, email and username with the right currentPassword', async () => {
      const user = await createUser(t);
      const { password, email, username } = changesOf(user);

      const res = await put(user.id, user.headers, {
        ...email,
        ...username,
        currentPassword: user.password,
      });
      expect(res.status).toBe(200);
      // The new email waits for its mailed link (accounts.e2e-spec.ts).
      expect(res.body).toMatchObject({
        id: user.id,
        email: user.email,
        pendingEmail: email.email,
        ...username,
      });
      expect(res.body).not.toHaveProperty('currentPassword');
      expect(res.text).not.toContain(user.password);
      await put(user.id, user.headers, { ...password, currentPassword: user.password }).expect(200);

      expect((await login(username.username, user.password)).status).toBe(401);
      await loginAs(t, username.username, password.password);
    });

    it('should ask an admin changing itself for currentPassword too', async () => {
      const admin = await createUser(t, { role: 'admin' });
      const { email } = changesOf(admin);

      expectValidationError(await put(admin.id, admin.headers, email), ['currentPassword']);
      expectError(
        await put(admin.id, admin.headers, { ...email, currentPassword: 'wrong password' }),
        403,
        'INVALID_CURRENT_PASSWORD',
      );
      const res = await put(admin.id, admin.headers, { ...email, currentPassword: admin.password });
      expect(res.status).toBe(200);
      expect(res.body.pendingEmail).toBe(email.email);
    });

    it('should take currentPassword from an API key changing its owner’s email, and still refuse it a password', async () => {
      const user = await createUser(t);
      const key = apiKey((await createApiKey(t, user.headers)).key);
      const { email, password } = changesOf(user);

      expectValidationError(await put(user.id, key, email), ['currentPassword']);
      expectError(
        await put(user.id, key, { ...email, currentPassword: 'wrong password' }),
        403,
        'INVALID_CURRENT_PASSWORD',
      );
      expectError(
        await put(user.id, key, { ...password, currentPassword: user.password }),
        403,
        'INSUFFICIENT_PERMISSIONS',
      );
      const res = await put(user.id, key, { ...email, currentPassword: user.password });
      expect(res.status).toBe(200);
      expect(res.body.pendingEmail).toBe(email.email);
    });

    it.each([
      { value: 'empty', currentPassword: '' },
      { value: 'a number', currentPassword: 42 },
      { value: 'null', currentPassword: null },
      { value: 'over 1024 characters', currentPassword: 'x'.repeat(1025) },
    ])('should refuse currentPassword $value as invalid', async ({ currentPassword }) => {
      const user = await createUser(t);

      const res = await put(user.id, user.headers, { ...changesOf(user).email, currentPassword });

      expectValidationError(res, ['currentPassword']);
    });
  });

  describe('PUT /v1/users/{id} on someone else, or on other fields', () => {
    it("should let an admin change someone else's password, email and username without one", async () => {
      const user = await createUser(t);
      const { password, email, username } = changesOf(user);

      const res = await put(user.id, t.admin, { ...password, ...email, ...username });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ...email, ...username });
      await loginAs(t, username.username, password.password);
    });

    it('should refuse currentPassword where no change asks for it, and change nothing', async () => {
      const user = await createUser(t);
      const other = await createUser(t);

      for (const [id, headers, body] of [
        [user.id, user.headers, { firstName: 'Ada' }],
        [other.id, t.admin, { firstName: 'Ada' }],
        [other.id, t.admin, { password: 'set by the admin' }],
      ] as const) {
        const res = await put(id, headers, { ...body, currentPassword: user.password });

        expectValidationError(res, ['currentPassword']);
        expect(res.text).not.toContain(user.password);
      }
      for (const unchanged of [user, other]) {
        const row = await t.http.get(`/v1/users/${unchanged.id}`).set(t.admin).expect(200);
        expect(row.body).not.toHaveProperty('firstName');
      }
      await expectUnchanged(other);
    });
  });

  describe('and the login lockout', () => {
    const changeEmail = (user: CreatedUser, currentPassword: string) =>
      put(user.id, user.headers, { ...changesOf(user).email, currentPassword });

    it('should count a wrong currentPassword as a failed login of that username', async () => {
      const user = await createUser(t);
      for (let i = 0; i < LOCKOUT_FAILURES; i++) {
        expectError(await changeEmail(user, 'wrong password'), 403, 'INVALID_CURRENT_PASSWORD');
      }

      expectError(await login(user.username, user.password), 401, 'INVALID_CREDENTIALS');
    });

    it('should refuse the right currentPassword while the username is locked, as a wrong one', async () => {
      const user = await createUser(t);
      const wrong = await changeEmail(user, 'wrong password');
      for (let i = 1; i < LOCKOUT_FAILURES; i++) {
        expectError(await login(user.username, 'wrong password'), 401, 'INVALID_CREDENTIALS');
      }

      const locked = await changeEmail(user, user.password);

      expectError(locked, 403, 'INVALID_CURRENT_PASSWORD');
      expect(locked.body.message).toBe(wrong.body.message);
      const row = await t.http.get(`/v1/users/${user.id}`).set(t.admin).expect(200);
      expect(row.body.email).toBe(user.email);
    });

    it('should let the right currentPassword through below the threshold', async () => {
      const user = await createUser(t);
      for (let i = 1; i < LOCKOUT_FAILURES; i++) {
        expectError(await changeEmail(user, 'wrong password'), 403, 'INVALID_CURRENT_PASSWORD');
      }

      expect((await changeEmail(user, user.password)).status).toBe(200);
    });
  });
});
