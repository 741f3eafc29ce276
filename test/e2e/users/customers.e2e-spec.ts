import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKey, createUser, type CreatedUser } from '../../support/auth.js';
import { errorBody, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

/*
 * GET /users/customers: how staff find the customer they request an adoption for
 * (docs/api-decisions.md, Adoptions): active customers by the start of their username or
 * their whole address, at most ten, each only as { id, username }.
 */
describe('Finding customers (e2e)', () => {
  let t: TestApp;
  let ada: CreatedUser;
  let adam: CreatedUser;
  let customer: CreatedUser;

  const find = (q: string, headers = t.user) =>
    t.http.get('/v1/users/customers').query({ q }).set(headers);
  const keyWith = async (scopes: string[]) => {
    const res = await t.http
      .post('/v1/api-keys')
      .set(t.user)
      .send({ name: 'picker', mode: 'test', scopes })
      .expect(201);
    return apiKey(res.body.key as string);
  };

  beforeAll(async () => {
    t = await createTestApp();
    ada = await createUser(t, { role: 'customer', username: 'Ada_Lovelace' });
    adam = await createUser(t, {
      role: 'customer',
      username: 'adam.smith',
      email: 'wealth@nations.example',
    });
    customer = await createUser(t, { role: 'customer', username: 'zed' });
    // Found by none of the searches below: staff, a disabled customer, an unverified one.
    await createUser(t, { role: 'user', username: 'adastaff' });
    await createUser(t, { role: 'customer', username: 'ada_gone', userStatus: 1 });
    await createUser(t, { role: 'customer', username: 'ada_new', userStatus: 2 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('should find active customers by the start of their username in any case, by username, only as id and username', async () => {
    for (const headers of [t.user, t.admin]) {
      const res = await find('ADA', headers).expect(200);
      expect(res.body).toEqual({
        customers: [
          { id: ada.id, username: 'Ada_Lovelace' },
          { id: adam.id, username: 'adam.smith' },
        ],
      });
    }
  });

  it('should take _ and % in q as themselves, not as wildcards', async () => {
    expect((await find('ada_').expect(200)).body).toEqual({
      customers: [{ id: ada.id, username: 'Ada_Lovelace' }],
    });
    expect((await find('ad%').expect(200)).body).toEqual({ customers: [] });
  });

  it('should find a customer by its whole email address, not by part of it', async () => {
    expect((await find(' Wealth@Nations.example ').expect(200)).body).toEqual({
      customers: [{ id: adam.id, username: 'adam.smith' }],
    });
    expect((await find('wealth@').expect(200)).body).toEqual({ customers: [] });
  });

  it('should answer ten customers at most', async () => {
    for (let i = 0; i < 11; i += 1) {
      await createUser(t, { role: 'customer', username: `many${String(i).padStart(2, '0')}` });
    }
    const res = await find('many').expect(200);
    const { customers } = res.body as { customers: { username: string }[] };
    expect(customers.map((c) => c.username)).toEqual(
      Array.from({ length: 10 }, (_, i) => `many${String(i).padStart(2, '0')}`),
    );
  });

  it('should refuse a customer with 403 INSUFFICIENT_PERMISSIONS', async () => {
    const res = await find('ada', customer.headers);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errorBody('INSUFFICIENT_PERMISSIONS'));
  });

  it.each([[''], ['ad'], ['  ad  '], ['a'.repeat(255)]])(
    'should refuse q %j with 400 naming q',
    async (q) => {
      expectValidationError(await find(q), ['q']);
    },
  );

  it('should refuse a missing q with 400 naming q', async () => {
    expectValidationError(await t.http.get('/v1/users/customers').set(t.user), ['q']);
  });

  it('should refuse a key without users:read with 403 INSUFFICIENT_SCOPE, and let one with it through', async () => {
    const without = await find('ada', await keyWith(['adoptions:write', 'adoptions:read']));
    expect(without.status).toBe(403);
    expect(without.body).toEqual(errorBody('INSUFFICIENT_SCOPE', { required: ['users:read'] }));
    expect(without.headers['x-accepted-scopes']).toBe('users:read');

    const res = await find('zed', await keyWith(['users:read'])).expect(200);
    expect(res.body).toEqual({ customers: [{ id: customer.id, username: 'zed' }] });
  });
});
