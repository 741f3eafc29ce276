import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKey, createApiKey, createUser, type Headers } from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { ADMIN_USERNAME, createTestApp, type TestApp } from '../../support/test-app.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
// whsec_ and the base64 of 32 bytes: 43 characters and one `=` of padding.
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const KEY = 'Idempotency-Key';
const DAY_MS = 24 * 60 * 60 * 1000;

// Public addresses, written as IP literals: they are checked without DNS (the tests have
// none) and nothing is ever sent to them (these tests change no pet).
const PUBLIC_URL = 'https://8.8.8.8/hooks/pets';
const OTHER_PUBLIC_URL = 'http://1.1.1.1:8080/receiver?source=petstore';

function webhookBody(fields: Record<string, unknown>) {
  return {
    id: expect.any(Number),
    // Every subscription of this file is the admin's.
    owner: { id: expect.any(Number), username: ADMIN_USERNAME },
    url: PUBLIC_URL,
    events: ['pet.created'],
    enabled: true,
    createdAt: expect.stringMatching(ISO),
    updatedAt: expect.stringMatching(ISO),
    ...fields,
  };
}

describe('Webhooks (e2e)', () => {
  let t: TestApp;
  let adminKey: Headers;
  let userKey: Headers;

  const create = (body: Record<string, unknown>, as: Headers = t.admin) =>
    t.http.post('/v1/webhooks').set(as).send(body);
  const createWebhook = async (fields: Record<string, unknown> = {}) =>
    (await create({ url: PUBLIC_URL, events: ['pet.created'], ...fields }).expect(201)).body as {
      id: number;
      secret: string;
    } & Record<string, unknown>;
  const rowOf = async (id: number) =>
    (
      await t.dataSource.query<Record<string, unknown>[]>(
        `SELECT secret, previous_secret AS "previousSecret",
                previous_secret_expires_at AS "previousSecretExpiresAt",
                disabled_reason AS "disabledReason", failing_since AS "failingSince"
           FROM webhook_subscriptions WHERE id = $1`,
        [id],
      )
    )[0];

  beforeAll(async () => {
    // The admin owns more subscriptions here than an account may by default.
    t = await createTestApp({
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'false',
      WEBHOOKS_PER_USER: '100',
    });
    adminKey = apiKey((await createApiKey(t, t.admin)).key);
    userKey = apiKey((await createApiKey(t, t.user)).key);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /v1/webhooks', () => {
    it('should create a subscription and show its secret, with Cache-Control: no-store, leaving unset fields out', async () => {
      const res = await create({ url: PUBLIC_URL, events: ['pet.created'] });

      expect(res.status).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual(webhookBody({ secret: expect.stringMatching(SECRET) }));
      const secret = String(res.body.secret);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect((await rowOf(res.body.id)).secret).toBe(res.body.secret);
    });

    it('should keep a description and every event type', async () => {
      const events = [
        'pet.created',
        'pet.updated',
        'pet.status_changed',
        'pet.deleted',
        'pet.image_added',
      ];
      const res = await create({ url: OTHER_PUBLIC_URL, events, description: 'The shop' });

      expect(res.status).toBe(201);
      expect(res.body).toEqual(
        webhookBody({
          url: OTHER_PUBLIC_URL,
          events,
          description: 'The shop',
          secret: expect.stringMatching(SECRET),
        }),
      );
    });

    it('should give every subscription its own secret', async () => {
      const first = await createWebhook();
      const second = await createWebhook();

      expect(first.secret).not.toBe(second.secret);
    });

    it.each([
      ['no url', { url: undefined }, 'url'],
      ['a null url', { url: null }, 'url'],
      ['a url that is not a string', { url: 42 }, 'url'],
      ['an ftp url', { url: 'ftp://8.8.8.8/hooks' }, 'url'],
      ['a relative url', { url: '/hooks' }, 'url'],
      ['a url without scheme', { url: '8.8.8.8/hooks' }, 'url'],
      ['a url with user and password', { url: 'https://user:pass@8.8.8.8/hooks' }, 'url'],
      ['a url of 2049 characters', { url: `https://8.8.8.8/${'a'.repeat(2033)}` }, 'url'],
      ['no events', { events: undefined }, 'events'],
      ['empty events', { events: [] }, 'events'],
      ['events that are not a list', { events: 'pet.created' }, 'events'],
      ['an event type not among the five', { events: ['pet.created', 'pet.sold'] }, 'events'],
      ['a repeated event type', { events: ['pet.created', 'pet.created'] }, 'events'],
      ['a description of 501 characters', { description: 'd'.repeat(501) }, 'description'],
      ['an unknown field', { secret: 'whsec_mine' }, 'secret'],
      ['a prototype key', JSON.parse('{"__proto__": {"x": 1}}'), '__proto__'],
    ])('should refuse %s with 400 on that field', async (_name, fields, field) => {
      const res = await create({ url: PUBLIC_URL, events: ['pet.created'], ...fields });

      expectValidationError(res, [field]);
    });

    it('should accept a url of 2048 characters', async () => {
      const url = `https://8.8.8.8/${'a'.repeat(2032)}`;

      expect((await create({ url, events: ['pet.created'] })).status).toBe(201);
    });

    it.each([
      ['a link-local (metadata) address', 'http://169.254.169.254/latest/meta-data/'],
      ['a loopback address', 'http://127.0.0.1:8080/hooks'],
      ['a private address', 'http://10.0.0.1/hooks'],
      ['the IPv6 cloud metadata address', 'http://[fd00:ec2::254]/'],
      ['a name that resolves to loopback', 'http://localhost:8080/hooks'],
      ['a name that does not resolve', 'https://nonexistent.invalid/hooks'],
      ['IPv4-compatible IPv6 loopback', 'http://[::127.0.0.1]:8080/hooks'],
      ['IPv4-compatible IPv6 loopback, in hex', 'http://[::7f00:1]/hooks'],
      ['Azure’s wire server', 'http://168.63.129.16/machine'],
    ])('should refuse %s with 400 on url, creating nothing', async (_name, url) => {
      const before = await t.http.get('/v1/webhooks').set(t.admin).expect(200);

      const res = await create({ url, events: ['pet.created'] });

      expectValidationError(res, ['url']);
      const after = await t.http.get('/v1/webhooks').set(t.admin).expect(200);
      expect(after.body.pagination.total).toBe(before.body.pagination.total);
    });

    it.each([
      ['http://[::7f00:1]/hooks', 'the host is a loopback address'],
      ['http://[::a83f:8110]/', 'the host is a cloud metadata address'],
      ['http://localhost:8080/hooks', 'localhost resolves to a loopback address'],
    ])('should name the rule that refuses %s, never the address', async (url, message) => {
      const res = await create({ url, events: ['pet.created'] });

      expectValidationError(res, ['url']);
      expect(res.body.details.fields).toEqual([{ field: 'url', message }]);
    });

    it('should replay a creation without the secret, which the stored response lacks, still with Cache-Control: no-store', async () => {
      const key = `key-${randomUUID()}`;
      const send = () =>
        t.http
          .post('/v1/webhooks')
          .set(t.admin)
          .set(KEY, key)
          .send({ url: PUBLIC_URL, events: ['pet.deleted'] });

      const first = await send().expect(201);
      const retry = await send().expect(201);

      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.headers['cache-control']).toBe('no-store');
      const { secret, ...subscription } = first.body as Record<string, unknown>;
      expect(secret).toMatch(SECRET);
      expect(retry.body).toEqual(subscription);
      const stored = await t.dataSource.query<{ row: string }[]>(
        'SELECT k::text AS row FROM idempotency_keys k WHERE key = $1',
        [key],
      );
      expect(stored).toHaveLength(1);
      expect(stored[0].row).not.toContain(String(secret));
    });
  });

  describe('GET /v1/webhooks', () => {
    it('should list newest first, paged, without secrets', async () => {
      const created = [await createWebhook(), await createWebhook(), await createWebhook()];
      const total = (await t.http.get('/v1/webhooks').set(t.admin).expect(200)).body.pagination
        .total as number;

      const first = await t.http.get('/v1/webhooks?limit=2').set(t.admin).expect(200);
      const second = await t.http.get('/v1/webhooks?limit=2&offset=2').set(t.admin).expect(200);

      const ids = (first.body.webhooks as { id: number }[]).map((w) => w.id);
      expect(ids).toEqual([created[2].id, created[1].id]);
      expect(first.body.pagination).toEqual({ limit: 2, offset: 0, total, hasMore: true });
      expect(second.body.webhooks[0].id).toBe(created[0].id);
      expect(second.body.pagination).toEqual({
        limit: 2,
        offset: 2,
        total,
        hasMore: total > 4,
      });
      const { secret: _secret, ...shown } = created[2];
      expect(first.body.webhooks[0]).toEqual(shown);
      expect(JSON.stringify(first.body)).not.toContain('whsec_');
    });

    it('should answer a first page of 100 by default', async () => {
      const res = await t.http.get('/v1/webhooks').set(t.admin).expect(200);

      expect(res.body.pagination).toMatchObject({ limit: 100, offset: 0 });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['offset=-1', 'offset'],
      ['enabled=true', 'enabled'],
    ])('should refuse %s with 400', async (query, field) => {
      expectValidationError(await t.http.get(`/v1/webhooks?${query}`).set(t.admin), [field]);
    });
  });

  describe('GET /v1/webhooks/{webhookId}', () => {
    it('should answer the subscription without its secret', async () => {
      const { secret, ...shown } = await createWebhook({ description: 'Shop' });

      const res = await t.http.get(`/v1/webhooks/${shown.id}`).set(t.admin).expect(200);

      expect(res.body).toEqual(shown);
      expect(res.text).not.toContain(secret);
    });

    it('should answer 404 WEBHOOK_NOT_FOUND for an id with nothing behind it', async () => {
      expectError(
        await t.http.get('/v1/webhooks/999999999').set(t.admin),
        404,
        'WEBHOOK_NOT_FOUND',
      );
      expectError(
        await t.http.get('/v1/webhooks/9007199254740993').set(t.admin),
        404,
        'WEBHOOK_NOT_FOUND',
      );
    });

    it('should refuse an id that is not a positive integer with 400', async () => {
      expectValidationError(await t.http.get('/v1/webhooks/abc').set(t.admin), ['webhookId']);
      expectValidationError(await t.http.get('/v1/webhooks/0').set(t.admin), ['webhookId']);
    });
  });

  describe('PUT /v1/webhooks/{webhookId}', () => {
    it('should change the fields sent and keep the others', async () => {
      const { id } = await createWebhook({ description: 'Shop' });

      const res = await t.http
        .put(`/v1/webhooks/${id}`)
        .set(t.admin)
        .send({ url: OTHER_PUBLIC_URL, events: ['pet.status_changed', 'pet.deleted'] });

      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        webhookBody({
          id,
          url: OTHER_PUBLIC_URL,
          events: ['pet.status_changed', 'pet.deleted'],
          description: 'Shop',
        }),
      );
    });

    it('should clear the description with null, and then leave it out', async () => {
      const { id } = await createWebhook({ description: 'Shop' });

      const res = await t.http.put(`/v1/webhooks/${id}`).set(t.admin).send({ description: null });

      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('description');
    });

    it('should disable and re-enable, re-enabling clearing why the service disabled it', async () => {
      const { id } = await createWebhook();
      const disabled = await t.http
        .put(`/v1/webhooks/${id}`)
        .set(t.admin)
        .send({ enabled: false })
        .expect(200);
      expect(disabled.body).toEqual(webhookBody({ id, enabled: false }));
      // As the delivery worker leaves it after 24 hours of failures.
      const reason = 'Every delivery failed for 24 hours (last: connection refused)';
      await t.dataSource.query(
        `UPDATE webhook_subscriptions
            SET disabled_reason = $2, failing_since = now() - interval '25 hours'
          WHERE id = $1`,
        [id, reason],
      );
      const shown = await t.http.get(`/v1/webhooks/${id}`).set(t.admin).expect(200);
      expect(shown.body).toEqual(webhookBody({ id, enabled: false, disabledReason: reason }));

      const enabled = await t.http
        .put(`/v1/webhooks/${id}`)
        .set(t.admin)
        .send({ enabled: true })
        .expect(200);

      expect(enabled.body).toEqual(webhookBody({ id, enabled: true }));
      expect(await rowOf(id)).toMatchObject({ disabledReason: null, failingSince: null });
    });

    it('should keep the failure streak of an enabled webhook that a PUT says enabled again', async () => {
      const { id } = await createWebhook();
      await t.dataSource.query(
        `UPDATE webhook_subscriptions SET failing_since = now() - interval '23 hours' WHERE id = $1`,
        [id],
      );
      const { failingSince } = await rowOf(id);

      await t.http.put(`/v1/webhooks/${id}`).set(t.admin).send({ enabled: true }).expect(200);

      expect(await rowOf(id)).toMatchObject({ failingSince });
    });

    it('should never show or change the secret', async () => {
      const { id, secret } = await createWebhook();

      const res = await t.http
        .put(`/v1/webhooks/${id}`)
        .set(t.admin)
        .send({ description: 'x' })
        .expect(200);

      expect(res.body).not.toHaveProperty('secret');
      expect((await rowOf(id)).secret).toBe(secret);
    });

    it.each([
      ['an empty body', {}, 'body'],
      ['empty events', { events: [] }, 'events'],
      ['a repeated event type', { events: ['pet.deleted', 'pet.deleted'] }, 'events'],
      ['an unknown event type', { events: ['pet.adopted'] }, 'events'],
      ['a null url', { url: null }, 'url'],
      ['null events', { events: null }, 'events'],
      ['a null enabled', { enabled: null }, 'enabled'],
      ['an enabled that is not a boolean', { enabled: 'yes' }, 'enabled'],
      ['an ftp url', { url: 'ftp://8.8.8.8/' }, 'url'],
      ['a loopback url', { url: 'http://127.0.0.1/' }, 'url'],
      ['an unknown field', { disabledReason: null }, 'disabledReason'],
      ['the secret', { secret: 'whsec_mine' }, 'secret'],
    ])('should refuse %s with 400 on that field', async (_name, body, field) => {
      const { id } = await createWebhook();

      expectValidationError(await t.http.put(`/v1/webhooks/${id}`).set(t.admin).send(body), [
        field,
      ]);
    });

    it('should answer 404 WEBHOOK_NOT_FOUND for a subscription that does not exist', async () => {
      const res = await t.http.put('/v1/webhooks/999999999').set(t.admin).send({ enabled: false });

      expectError(res, 404, 'WEBHOOK_NOT_FOUND');
    });
  });

  describe('DELETE /v1/webhooks/{webhookId}', () => {
    it('should delete the subscription and its deliveries, answering {}', async () => {
      const { id } = await createWebhook();
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (subscription_id, event_sequence, event_id, event_type, pet_id, body)
         VALUES ($1, 1, $2, 'pet.created', 1, '{}')`,
        [id, randomUUID()],
      );

      const res = await t.http.delete(`/v1/webhooks/${id}`).set(t.admin);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expectError(await t.http.get(`/v1/webhooks/${id}`).set(t.admin), 404, 'WEBHOOK_NOT_FOUND');
      const deliveries = await t.dataSource.query<unknown[]>(
        'SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1',
        [id],
      );
      expect(deliveries).toEqual([]);
    });

    it('should answer 404 WEBHOOK_NOT_FOUND the second time', async () => {
      const { id } = await createWebhook();
      await t.http.delete(`/v1/webhooks/${id}`).set(t.admin).expect(200);

      expectError(await t.http.delete(`/v1/webhooks/${id}`).set(t.admin), 404, 'WEBHOOK_NOT_FOUND');
    });
  });

  describe('POST /v1/webhooks/{webhookId}/rotate-secret', () => {
    it('should show a new secret, with Cache-Control: no-store, and keep the old one signing for 24 hours', async () => {
      const created = await createWebhook();
      const before = Date.now();

      const res = await t.http.post(`/v1/webhooks/${created.id}/rotate-secret`).set(t.admin);

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual(
        webhookBody({
          id: created.id,
          secret: expect.stringMatching(SECRET),
          previousSecretExpiresAt: expect.stringMatching(ISO),
        }),
      );
      expect(res.body.secret).not.toBe(created.secret);
      const expiresAt = Date.parse(res.body.previousSecretExpiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + DAY_MS - 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + DAY_MS + 1000);
      expect(await rowOf(created.id)).toMatchObject({
        secret: res.body.secret,
        previousSecret: created.secret,
      });
      const shown = await t.http.get(`/v1/webhooks/${created.id}`).set(t.admin).expect(200);
      expect(shown.body).toEqual(
        webhookBody({ id: created.id, previousSecretExpiresAt: res.body.previousSecretExpiresAt }),
      );
    });

    it('should leave the previous secret’s expiry out once it has passed', async () => {
      const { id } = await createWebhook();
      await t.http.post(`/v1/webhooks/${id}/rotate-secret`).set(t.admin).expect(200);
      await t.dataSource.query(
        `UPDATE webhook_subscriptions SET previous_secret_expires_at = now() - interval '1 second'
          WHERE id = $1`,
        [id],
      );

      const res = await t.http.get(`/v1/webhooks/${id}`).set(t.admin).expect(200);

      expect(res.body).not.toHaveProperty('previousSecretExpiresAt');
    });

    it('should take an empty JSON body too, refuse any field in it with 400, and a body of another type with 415', async () => {
      const { id } = await createWebhook();

      await t.http.post(`/v1/webhooks/${id}/rotate-secret`).set(t.admin).send({}).expect(200);
      const chosen = await t.http
        .post(`/v1/webhooks/${id}/rotate-secret`)
        .set(t.admin)
        .send({ secret: 'whsec_mine', note: 'x' });
      expectValidationError(chosen, ['secret', 'note']);
      const res = await t.http
        .post(`/v1/webhooks/${id}/rotate-secret`)
        .set(t.admin)
        .set('Content-Type', 'text/plain')
        .send('rotate');

      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('should replay a rotation without the secret, rotating once, still with Cache-Control: no-store', async () => {
      const { id } = await createWebhook();
      const key = `key-${randomUUID()}`;
      const rotate = () =>
        t.http.post(`/v1/webhooks/${id}/rotate-secret`).set(t.admin).set(KEY, key);

      const first = await rotate().expect(200);
      const retry = await rotate().expect(200);

      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.headers['cache-control']).toBe('no-store');
      const { secret, ...subscription } = first.body as Record<string, unknown>;
      expect(retry.body).toEqual(subscription);
      expect((await rowOf(id)).secret).toBe(secret);
    });

    it('should answer 404 WEBHOOK_NOT_FOUND for a subscription that does not exist', async () => {
      const res = await t.http.post('/v1/webhooks/999999999/rotate-secret').set(t.admin);

      expectError(res, 404, 'WEBHOOK_NOT_FOUND');
    });
  });

  describe('access', () => {
    let id: number;
    beforeAll(async () => {
      id = (await createWebhook()).id;
    });

    const requests = () =>
      [
        [
          'POST /v1/webhooks',
          () => t.http.post('/v1/webhooks').send({ url: PUBLIC_URL, events: ['pet.created'] }),
        ],
        ['GET /v1/webhooks', () => t.http.get('/v1/webhooks')],
        ['GET /v1/webhooks/{id}', () => t.http.get(`/v1/webhooks/${id}`)],
        ['PUT /v1/webhooks/{id}', () => t.http.put(`/v1/webhooks/${id}`).send({ enabled: true })],
        ['DELETE /v1/webhooks/{id}', () => t.http.delete(`/v1/webhooks/${id}`)],
        [
          'POST /v1/webhooks/{id}/rotate-secret',
          () => t.http.post(`/v1/webhooks/${id}/rotate-secret`),
        ],
        ['GET /v1/webhooks/{id}/deliveries', () => t.http.get(`/v1/webhooks/${id}/deliveries`)],
        [
          'GET /v1/webhooks/{id}/deliveries/{deliveryId}',
          () => t.http.get(`/v1/webhooks/${id}/deliveries/1`),
        ],
        [
          'POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry',
          () => t.http.post(`/v1/webhooks/${id}/deliveries/1/retry`),
        ],
      ] as const;

    it('should answer 401 AUTHENTICATION_REQUIRED to every route without a credential', async () => {
      for (const [, send] of requests()) {
        expectError(await send(), 401, 'AUTHENTICATION_REQUIRED');
      }
    });

    it('should answer 403 INSUFFICIENT_PERMISSIONS to every route for a customer, and for a user’s API key', async () => {
      const customer = await createUser(t, { role: 'customer' });
      for (const [route, send] of requests()) {
        const res = await send().set(customer.headers);
        expect({ route, status: res.status }).toEqual({ route, status: 403 });
        expectError(res, 403, 'INSUFFICIENT_PERMISSIONS');
        expectError(await send().set(userKey), 403, 'INSUFFICIENT_PERMISSIONS');
      }
      await t.http.get(`/v1/webhooks/${id}`).set(t.admin).expect(200);
    });

    it('should answer 403 INSUFFICIENT_PERMISSIONS to every route for an admin’s API key: bearer token only', async () => {
      const { secret } = (await rowOf(id)) as { secret: string };
      for (const [route, send] of requests()) {
        const res = await send().set(adminKey);
        expect({ route, status: res.status }).toEqual({ route, status: 403 });
        expectError(res, 403, 'INSUFFICIENT_PERMISSIONS');
      }
      await t.http.get(`/v1/webhooks/${id}`).set(t.admin).expect(200);
      expect((await rowOf(id)).secret).toBe(secret);
    });
  });
});

// Its own app, started once the other has closed: Passport's strategies are process-wide, so
// a second app with a JWT secret of its own would refuse the first app's tokens.
describe('Webhooks where private addresses are allowed (e2e)', () => {
  let open: TestApp;

  beforeAll(async () => {
    open = await createTestApp({
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOKS_PER_USER: '100',
    });
  });
  afterAll(async () => {
    await open.close();
  });

  const createOn = (url: string) =>
    open.http
      .post('/v1/webhooks')
      .set(open.admin)
      .send({ url, events: ['pet.created'] });

  it.each([
    ['a loopback address', 'http://127.0.0.1:8080/hooks'],
    ['a private address', 'http://10.0.0.1/hooks'],
    ['a carrier-grade NAT address', 'http://100.64.0.1/hooks'],
    ['a name that resolves to loopback', 'http://localhost:8080/hooks'],
    ['IPv4-compatible IPv6 loopback', 'http://[::7f00:1]:8080/hooks'],
  ])('should accept %s', async (_name, url) => {
    const res = await createOn(url);

    expect(res.status).toBe(201);
    expect(res.body.url).toBe(url);
  });

  it.each([
    ['a link-local (metadata) address', 'http://169.254.169.254/latest/meta-data/'],
    ['the IPv6 cloud metadata address', 'http://[fd00:ec2::254]/'],
    ['the carrier-grade NAT metadata address', 'http://100.100.100.200/latest/meta-data/'],
    ['Azure’s wire server', 'http://168.63.129.16/machine'],
    ['IPv4-compatible IPv6 metadata address', 'http://[::a9fe:a9fe]/latest/meta-data/'],
    ['a name that does not resolve', 'https://nonexistent.invalid/hooks'],
    ['an ftp url', 'ftp://127.0.0.1/hooks'],
  ])('should still refuse %s with 400 on url', async (_name, url) => {
    expectValidationError(await createOn(url), ['url']);
  });

  it('should check the url of an update the same way', async () => {
    const { id } = (await createOn('http://127.0.0.1:8080/hooks').expect(201)).body as {
      id: number;
    };

    const update = (url: string) =>
      open.http.put(`/v1/webhooks/${id}`).set(open.admin).send({ url });

    expect((await update('http://192.168.1.20/hooks')).status).toBe(200);
    expectValidationError(await update('http://169.254.169.254/'), ['url']);
  });
});
