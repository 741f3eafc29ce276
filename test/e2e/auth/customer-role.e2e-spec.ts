import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  apiKey,
  bearer,
  createApiKey,
  createUser,
  loginAs,
  type CreatedUser,
} from '../../support/auth.js';
import { expectError } from '../../support/errors.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

// Contract section 8, Accounts: a customer (what a self-registered account gets) reads pets
// and categories and manages its own profile, API keys and sessions; every other operation
// is 403 INSUFFICIENT_PERMISSIONS.
describe('The customer role (e2e)', () => {
  let t: TestApp;
  let customer: CreatedUser;
  let customerKey: { id: number; key: string };
  let petId: number;
  let categoryId: number;

  beforeAll(async () => {
    t = await createTestApp();
    customer = await createUser(t, { role: 'customer' });
    customerKey = await createApiKey(t, customer.headers);
    petId = await createPet(t);
    categoryId = (await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200)).body.category.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('should read pets and categories, with a token and with its API key', async () => {
    for (const headers of [customer.headers, apiKey(customerKey.key)]) {
      await t.http.get('/v1/pets').set(headers).expect(200);
      await t.http.get(`/v1/pets/${petId}`).set(headers).expect(200);
      await t.http.get('/v1/pets/inventory').set(headers).expect(200);
      await t.http.get('/v1/pets/facets').set(headers).expect(200);
      await t.http.get('/v1/pets?q=rex').set(headers).expect(200);
      await t.http.get(`/v1/pets/${petId}/history`).set(headers).expect(200);
      await t.http.get('/v1/categories').set(headers).expect(200);
      await t.http.get(`/v1/categories/${categoryId}`).set(headers).expect(200);
    }
  });

  it('should manage its own profile, API keys and sessions', async () => {
    const own = await t.http.get(`/v1/users/${customer.id}`).set(customer.headers).expect(200);
    expect(own.body).toMatchObject({ id: customer.id, role: 'customer' });
    const renamed = await t.http
      .put(`/v1/users/${customer.id}`)
      .set(customer.headers)
      .send({ firstName: 'Casey' })
      .expect(200);
    expect(renamed.body).toMatchObject({ firstName: 'Casey', role: 'customer' });

    const key = await createApiKey(t, customer.headers, 'live', 'second');
    await t.http.get('/v1/api-keys').set(customer.headers).expect(200);
    await t.http.delete(`/v1/api-keys/${key.id}`).set(customer.headers).expect(200);

    const sessions = await t.http.get('/v1/auth/sessions').set(customer.headers).expect(200);
    await loginAs(t, customer.username, customer.password);
    const after = await t.http.get('/v1/auth/sessions').set(customer.headers).expect(200);
    const added = (after.body.sessions as { id: number }[]).filter(
      (s) => !(sessions.body.sessions as { id: number }[]).some((old) => old.id === s.id),
    );
    expect(added).toHaveLength(1);
    await t.http.delete(`/v1/auth/sessions/${added[0].id}`).set(customer.headers).expect(200);
  });

  it('should be refused every other operation with 403 INSUFFICIENT_PERMISSIONS', async () => {
    const pet = { name: 'Rex', categoryId, status: 'available' };
    const refused = [
      t.http.post('/v1/pets').send(pet),
      t.http.put(`/v1/pets/${petId}`).send(pet),
      t.http.delete(`/v1/pets/${petId}`),
      t.http.post(`/v1/pets/${petId}/upload-image`),
      t.http.get(`/v1/pets/${petId}/images`),
      t.http.post('/v1/categories').send({ name: 'Ferrets' }),
      t.http.put(`/v1/categories/${categoryId}`).send({ name: 'Ferrets' }),
      t.http.get('/v1/users'),
      t.http.get('/v1/rate-limit'),
      t.http.get('/v1/webhooks'),
    ];
    for (const request of refused) {
      expectError(await request.set(customer.headers), 403, 'INSUFFICIENT_PERMISSIONS');
    }
    const byKey = await t.http.post('/v1/pets').set(apiKey(customerKey.key)).send(pet);
    expectError(byKey, 403, 'INSUFFICIENT_PERMISSIONS');
  });

  it('should not let a customer make itself a user', async () => {
    const res = await t.http
      .put(`/v1/users/${customer.id}`)
      .set(customer.headers)
      .send({ role: 'user' });
    expectError(res, 403, 'INSUFFICIENT_PERMISSIONS');
  });

  it('should let an admin change a customer to user or admin, and back', async () => {
    const person = await createUser(t, { role: 'customer' });
    const setRole = (role: string) =>
      t.http.put(`/v1/users/${person.id}`).set(t.admin).send({ role }).expect(200);

    expect((await setRole('user')).body.role).toBe('user');
    const asUser = bearer(await loginAs(t, person.username, person.password));
    const created = await t.http
      .post('/v1/pets')
      .set(asUser)
      .send({ name: 'Rex', categoryId, status: 'available' });
    expect(created.status).toBe(201);

    expect((await setRole('admin')).body.role).toBe('admin');
    expect((await setRole('customer')).body.role).toBe('customer');
    const asCustomer = bearer(await loginAs(t, person.username, person.password));
    expectError(
      await t.http.delete(`/v1/pets/${created.body.id}`).set(asCustomer),
      403,
      'INSUFFICIENT_PERMISSIONS',
    );
  });
});
