import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../../src/database/transactions.js';
import type { PetEventType } from '../../../src/pets/pet-events.js';
import { WebhookDeliveriesRepository } from '../../../src/webhooks/delivery/webhook-deliveries.repository.js';
import { WEBHOOK_OWNER_ROLES } from '../../../src/webhooks/webhook-event-types.js';
import { createUser } from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { jpegImage } from '../../support/images.js';
import { refuseInserts, REFUSED } from '../../support/refused-inserts.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { uploadImage } from '../../support/uploads.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, verified, WebhookReceiver } from '../../support/webhook-receiver.js';

interface Subscription {
  id: number;
  secret: string;
  /** Its path on the receiver. */
  name: string;
}

interface Delivery {
  id: number;
  eventId: string;
  status: string;
  attempts: number;
  [field: string]: unknown;
}

const ALL_EVENTS: PetEventType[] = [
  'pet.created',
  'pet.updated',
  'pet.status_changed',
  'pet.deleted',
  'pet.image_added',
];

describe('Webhook deliveries (e2e, a real receiver on loopback)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let mediaDir: string;
  let categoryId: number;

  const subscribe = async (events: PetEventType[] = ALL_EVENTS): Promise<Subscription> => {
    const name = randomUUID();
    const res = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url(name), events })
      .expect(201);
    return { id: res.body.id, secret: res.body.secret, name };
  };
  const newPet = async (fields: object = {}) =>
    (
      await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Rex', categoryId, status: 'available', ...fields })
        .expect(201)
    ).body as { id: number };
  const put = (petId: number, body: object) =>
    t.http.put(`/v1/pets/${petId}`).set(t.user).send(body).expect(200);
  const getPet = async (petId: number) =>
    (await t.http.get(`/v1/pets/${petId}`).set(t.user).expect(200)).body as object;
  /** The pet's event ids, oldest first. */
  const eventIdsOf = async (petId: number) => {
    const res = await t.http.get(`/v1/pets/${petId}/history`).set(t.admin).expect(200);
    return (res.body.events as { id: string }[]).map((e) => e.id).reverse();
  };
  const deliveries = (s: Subscription, query = '') =>
    t.http.get(`/v1/webhooks/${s.id}/deliveries${query}`).set(t.admin);
  const deliveryOf = async (s: Subscription, eventId: string): Promise<Delivery | undefined> => {
    const list = await deliveries(s).expect(200);
    const found = (list.body.deliveries as Delivery[]).find((d) => d.eventId === eventId);
    if (!found) return undefined;
    const res = await t.http.get(`/v1/webhooks/${s.id}/deliveries/${found.id}`).set(t.admin);
    return res.body as Delivery;
  };
  const settled = async (s: Subscription, eventId: string, status = 'succeeded') => {
    let delivery: Delivery | undefined;
    await waitFor(async () => {
      delivery = await deliveryOf(s, eventId);
      return delivery?.status === status;
    }, 10_000);
    return delivery!;
  };
  const received = (s: Subscription, count: number) =>
    waitFor(() => Promise.resolve(receiver.to(s.name).length >= count), 10_000);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    mediaDir = await mkdtemp(join(tmpdir(), 'petstore-webhooks-'));
    // The admin owns more subscriptions here than an account may by default.
    t = await createTestApp({
      ...FAST_DELIVERY,
      MEDIA_DIR: mediaDir,
      METRICS_ENABLED: 'true',
      WEBHOOKS_PER_USER: '100',
    });
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Hooked' }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
    await rm(mediaDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    // Each test sees only its own subscriptions' deliveries.
    await t.dataSource.query(`UPDATE webhook_subscriptions SET enabled = false`);
  });

  it('should deliver every event type signed, verifiable, with the pet as the API returns it', async () => {
    const s = await subscribe();
    const statusOnly = await subscribe(['pet.status_changed']);
    const created = await newPet({ tags: ['calm'] });
    const afterCreate = await getPet(created.id);
    await put(created.id, { name: 'Max', age: 3 });
    const afterUpdate = await getPet(created.id);
    await put(created.id, { status: 'pending' });
    const afterMove = await getPet(created.id);
    await uploadImage(t, created.id, await jpegImage(32, 24)).expect(201);
    const afterImage = await getPet(created.id);
    await t.http.delete(`/v1/pets/${created.id}`).set(t.admin).expect(200);
    const ids = await eventIdsOf(created.id);

    await received(s, 5);

    const got = receiver.to(s.name);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(ids);
    const payloads = got.map((r) => verified(s.secret, r) as Record<string, unknown>);
    expect(payloads.map((p) => p.type)).toEqual([
      'pet.created',
      'pet.updated',
      'pet.status_changed',
      'pet.image_added',
      'pet.deleted',
    ]);
    expect(payloads.map((p) => p.data)).toEqual([
      afterCreate,
      afterUpdate,
      { ...afterMove, from: 'available', to: 'pending' },
      afterImage,
      afterImage,
    ]);
    for (const [i, webhook] of got.entries()) {
      expect(Object.keys(payloads[i])).toEqual(['type', 'timestamp', 'data']);
      expect(payloads[i].timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(webhook.headers).toEqual(
        expect.objectContaining({
          'content-type': 'application/json',
          'user-agent': 'petstore-webhooks/1',
          'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
          'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
        }),
      );
      expect(() => verified(`whsec_${randomBytes(32).toString('base64')}`, webhook)).toThrow(
        'No matching signature found',
      );
    }
    await received(statusOnly, 1);
    expect(receiver.to(statusOnly.name).map((r) => r.headers['webhook-id'])).toEqual([ids[2]]);
    expect(receiver.to(statusOnly.name)[0].body).toBe(got[2].body);
  });

  it('should retry a receiver that fails twice, with the same webhook-id, acknowledged once, and log the three attempts', async () => {
    const s = await subscribe();
    receiver.reply(s.name, { status: 500, body: 'down for maintenance' }, 503);
    const pet = await newPet();
    const [eventId] = await eventIdsOf(pet.id);

    const delivery = await settled(s, eventId);

    const got = receiver.to(s.name);
    expect(got.map((r) => [r.status, r.headers['webhook-id']])).toEqual([
      [500, eventId],
      [503, eventId],
      [204, eventId],
    ]);
    expect(receiver.acknowledged(s.name)).toHaveLength(1);
    for (const attempt of got) expect(verified(s.secret, attempt)).toBeDefined();
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const attempt = { attemptedAt: expect.any(String), durationMs: expect.any(Number) };
    expect(delivery).toEqual({
      id: expect.any(Number),
      eventId,
      eventType: 'pet.created',
      petId: pet.id,
      status: 'succeeded',
      attempts: 3,
      createdAt: expect.any(String),
      completedAt: expect.any(String),
      lastAttempt: { ...attempt, statusCode: 204 },
      attemptLog: [
        { ...attempt, statusCode: 204 },
        { ...attempt, statusCode: 503, error: 'answered with status 503' },
        {
          ...attempt,
          statusCode: 500,
          error: 'answered with status 500',
          responseBody: 'down for maintenance',
        },
      ],
    });
  });

  it('should deliver a pet’s quick changes in order even when the first one’s first attempt fails', async () => {
    const s = await subscribe();
    receiver.reply(s.name, 500);
    const pet = await newPet();
    for (let age = 1; age <= 4; age += 1) await put(pet.id, { age });
    const ids = await eventIdsOf(pet.id);

    await waitFor(() => Promise.resolve(receiver.acknowledged(s.name).length === 5), 10_000);

    expect(receiver.to(s.name)[0]).toEqual(
      expect.objectContaining({
        status: 500,
        headers: expect.objectContaining({ 'webhook-id': ids[0] }),
      }),
    );
    expect(receiver.acknowledged(s.name).map((r) => r.headers['webhook-id'])).toEqual(ids);
    expect(
      receiver
        .acknowledged(s.name)
        .map((r) => (verified(s.secret, r) as { data: { age?: number } }).data.age),
    ).toEqual([undefined, 1, 2, 3, 4]);
  });

  it('should fan out and deliver a later event to another webhook while a slow receiver holds its delivery', async () => {
    const [slow, fast] = [await subscribe(), await subscribe()];
    receiver.reply(slow.name, { status: 204, delayMs: 4_000 });
    const [firstEvent] = await eventIdsOf((await newPet()).id);
    await received(slow, 1);

    const [laterEvent] = await eventIdsOf((await newPet()).id);

    await waitFor(async () => (await deliveryOf(fast, laterEvent))?.status === 'succeeded', 3_000);
    // The slow receiver has not answered yet: its attempt is still to be recorded.
    expect(await deliveryOf(slow, firstEvent)).toEqual(
      expect.objectContaining({ status: 'pending', attempts: 0 }),
    );
    await settled(slow, firstEvent);
  });

  it('should sign with the old secret too after a rotation, so that either verifies', async () => {
    const s = await subscribe();
    const rotated = await t.http
      .post(`/v1/webhooks/${s.id}/rotate-secret`)
      .set(t.admin)
      .expect(200);
    await newPet();

    await received(s, 1);

    const [webhook] = receiver.to(s.name);
    expect(String(webhook.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(rotated.body.secret, webhook)).toBeDefined();
    expect(verified(s.secret, webhook)).toBeDefined();
  });

  it('should count a redirect as a failed attempt and not follow it', async () => {
    const s = await subscribe();
    const elsewhere = randomUUID();
    receiver.reply(s.name, { status: 302, headers: { location: receiver.url(elsewhere) } });
    const [eventId] = await eventIdsOf((await newPet()).id);

    const delivery = await settled(s, eventId);

    expect(receiver.to(elsewhere)).toEqual([]);
    expect(receiver.to(s.name).map((r) => r.status)).toEqual([302, 204]);
    expect((delivery.attemptLog as unknown[])[1]).toEqual({
      attemptedAt: expect.any(String),
      statusCode: 302,
      durationMs: expect.any(Number),
      error: 'redirect not followed (302)',
    });
  });

  it('should re-send a delivery at once on retry, with the same webhook-id', async () => {
    const s = await subscribe();
    const [eventId] = await eventIdsOf((await newPet()).id);
    const delivery = await settled(s, eventId);

    const retry = () =>
      t.http
        .post(`/v1/webhooks/${s.id}/deliveries/${delivery.id}/retry`)
        .set(t.admin)
        .set('Idempotency-Key', `retry-${delivery.id}`);
    const res = await retry().expect(202);

    const { attemptLog: _log, completedAt: _done, ...unchanged } = delivery;
    // It takes no body: a field sent anyway is unknown, and the refusal sends nothing.
    const withField = await t.http
      .post(`/v1/webhooks/${s.id}/deliveries/${delivery.id}/retry`)
      .set(t.admin)
      .send({ status: 'pending' });
    expectValidationError(withField, ['status']);
    expect(res.body).toEqual({
      ...unchanged,
      status: 'pending',
      nextAttemptAt: expect.any(String),
    });
    await received(s, 2);
    expect(receiver.to(s.name).map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect((await settled(s, eventId)).attempts).toBe(2);
    // The same request again is answered from the first, and sends nothing.
    const replay = await retry().expect(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(res.body);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to(s.name)).toHaveLength(2);
  });

  it('should mark a delivery failed once it has been retried for 24 hours', async () => {
    const s = await subscribe();
    receiver.answer(s.name, 500);
    const [eventId] = await eventIdsOf((await newPet()).id);
    await waitFor(async () => ((await deliveryOf(s, eventId))?.attempts ?? 0) >= 1);
    const before = await deliveryCounts(t);
    // A day passes since its first attempt: the next failure is the last.
    await t.dataSource.query(
      `UPDATE webhook_deliveries SET first_attempt_at = first_attempt_at - interval '24 hours'
        WHERE subscription_id = $1`,
      [s.id],
    );

    const delivery = await settled(s, eventId, 'failed');

    expect(delivery.nextAttemptAt).toBeUndefined();
    expect(delivery.completedAt).toEqual(expect.any(String));
    expect((await deliveryCounts(t)).failed - before.failed).toBe(1);
    const attempts = receiver.to(s.name).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to(s.name)).toHaveLength(attempts);
  });

  it('should disable a subscription whose receiver has failed for 24 hours, say why, and resume once re-enabled', async () => {
    const s = await subscribe();
    receiver.answer(s.name, 500);
    const pet = await newPet();
    const [eventId] = await eventIdsOf(pet.id);
    await waitFor(async () => ((await deliveryOf(s, eventId))?.attempts ?? 0) >= 1);
    await t.dataSource.query(
      `UPDATE webhook_subscriptions SET failing_since = failing_since - interval '24 hours'
        WHERE id = $1`,
      [s.id],
    );

    await waitFor(async () => {
      const res = await t.http.get(`/v1/webhooks/${s.id}`).set(t.admin).expect(200);
      return res.body.enabled === false;
    });

    const subscription = await t.http.get(`/v1/webhooks/${s.id}`).set(t.admin).expect(200);
    expect(subscription.body.disabledReason).toBe(
      'Every delivery failed for 24 hours (last: answered with status 500)',
    );
    const seen = receiver.to(s.name).length;
    await put(pet.id, { age: 7 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to(s.name)).toHaveLength(seen);
    expect((await deliveryOf(s, eventId))?.status).toBe('pending');

    receiver.answer(s.name, 204);
    await t.http.put(`/v1/webhooks/${s.id}`).set(t.admin).send({ enabled: true }).expect(200);

    expect((await settled(s, eventId)).status).toBe('succeeded');
  });

  it('should count deliveries by outcome in the metrics', async () => {
    const s = await subscribe();
    const before = await deliveryCounts(t);
    receiver.reply(s.name, 500);
    const [eventId] = await eventIdsOf((await newPet()).id);
    await settled(s, eventId);

    const after = await deliveryCounts(t);

    expect(after.succeeded - before.succeeded).toBe(1);
    expect(after.retrying - before.retrying).toBe(1);
    expect(after.failed - before.failed).toBe(0);
    expect(after.timed - before.timed).toBe(2);
  });

  describe('the delivery log', () => {
    it('should list a webhook’s deliveries newest first, filtered by status, paged', async () => {
      const s = await subscribe(['pet.created']);
      const [first] = await eventIdsOf((await newPet()).id);
      const second = await newPet();
      const [secondId] = await eventIdsOf(second.id);
      await settled(s, first);
      await settled(s, secondId);

      const res = await deliveries(s, '?limit=1').expect(200);

      expect(res.body).toEqual({
        deliveries: [
          {
            id: expect.any(Number),
            eventId: secondId,
            eventType: 'pet.created',
            petId: second.id,
            status: 'succeeded',
            attempts: 1,
            createdAt: expect.any(String),
            completedAt: expect.any(String),
            lastAttempt: {
              attemptedAt: expect.any(String),
              statusCode: 204,
              durationMs: expect.any(Number),
            },
          },
        ],
        pagination: { limit: 1, offset: 0, total: 2, hasMore: true },
      });
      expect((await deliveries(s, '?status=pending').expect(200)).body).toEqual({
        deliveries: [],
        pagination: { limit: 100, offset: 0, total: 0, hasMore: false },
      });
      expect(
        (await deliveries(s, '?status=succeeded&offset=1').expect(200)).body.deliveries,
      ).toEqual([expect.objectContaining({ eventId: first })]);
    });

    it('should show a waiting delivery’s next attempt, and no completion or attempt yet', async () => {
      const s = await subscribe();
      const body = JSON.stringify({ type: 'pet.created', timestamp: new Date().toISOString() });
      // Fanned out as the subscription is disabled: the delivery waits.
      const txHost = t.app.get<TxHost>(TransactionHost);
      await txHost.withTransaction(async () => {
        await t.app.get(WebhookDeliveriesRepository).insertForEvents([
          {
            event: {
              sequence: 1,
              id: 'evt_waiting',
              type: 'pet.created',
              petId: 1,
              occurredAt: new Date().toISOString(),
            },
            body,
            readers: WEBHOOK_OWNER_ROLES,
            pet: null,
          },
        ]);
        await txHost.tx.query(`UPDATE webhook_subscriptions SET enabled = false WHERE id = $1`, [
          s.id,
        ]);
      });

      const res = await deliveries(s).expect(200);

      expect(res.body.deliveries).toEqual([
        {
          id: expect.any(Number),
          eventId: 'evt_waiting',
          eventType: 'pet.created',
          petId: 1,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: expect.any(String),
          createdAt: expect.any(String),
        },
      ]);
      const detail = await t.http
        .get(`/v1/webhooks/${s.id}/deliveries/${res.body.deliveries[0].id as number}`)
        .set(t.admin)
        .expect(200);
      expect(detail.body).toEqual({ ...res.body.deliveries[0], attemptLog: [] });
    });

    it('should refuse a bad status filter and an unknown query parameter with 400', async () => {
      const s = await subscribe();
      expectError(await deliveries(s, '?status=lost'), 400, 'VALIDATION_ERROR');
      expectError(await deliveries(s, '?order=asc'), 400, 'VALIDATION_ERROR');
    });

    it('should answer 404 WEBHOOK_NOT_FOUND for an unknown webhook on every route', async () => {
      for (const res of [
        await t.http.get('/v1/webhooks/999999/deliveries').set(t.admin),
        await t.http.get('/v1/webhooks/999999/deliveries/1').set(t.admin),
        await t.http.post('/v1/webhooks/999999/deliveries/1/retry').set(t.admin),
        await t.http.get('/v1/webhooks/99999999999999999/deliveries').set(t.admin),
      ]) {
        expectError(res, 404, 'WEBHOOK_NOT_FOUND');
      }
    });

    it('should answer 404 WEBHOOK_DELIVERY_NOT_FOUND for an unknown delivery, or another webhook’s', async () => {
      const s = await subscribe();
      const other = await subscribe();
      const [eventId] = await eventIdsOf((await newPet()).id);
      const delivery = await settled(s, eventId);

      for (const res of [
        await t.http.get(`/v1/webhooks/${s.id}/deliveries/999999`).set(t.admin),
        await t.http.get(`/v1/webhooks/${other.id}/deliveries/${delivery.id}`).set(t.admin),
        await t.http.post(`/v1/webhooks/${other.id}/deliveries/${delivery.id}/retry`).set(t.admin),
      ]) {
        expectError(res, 404, 'WEBHOOK_DELIVERY_NOT_FOUND');
      }
    });

    it('should refuse ids that are not positive integers with 400', async () => {
      expectError(
        await t.http.get('/v1/webhooks/abc/deliveries').set(t.admin),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await t.http.get('/v1/webhooks/1/deliveries/0').set(t.admin),
        400,
        'VALIDATION_ERROR',
      );
    });

    it('should hide an admin’s webhook from a user (404) and refuse a customer (403)', async () => {
      const s = await subscribe();
      const customer = await createUser(t, { role: 'customer' });
      expectError(await deliveries(s).set(t.user), 404, 'WEBHOOK_NOT_FOUND');
      expectError(
        await t.http.post(`/v1/webhooks/${s.id}/deliveries/1/retry`).set(t.user),
        404,
        'WEBHOOK_NOT_FOUND',
      );
      expectError(await deliveries(s).set(customer.headers), 403, 'INSUFFICIENT_PERMISSIONS');
      expectError(
        await t.http.get(`/v1/webhooks/${s.id}/deliveries`),
        401,
        'AUTHENTICATION_REQUIRED',
      );
    });
  });

  it('should retry the fan-out of an event that failed, counting it by consumer, and deliver the event once', async () => {
    const outcome = async (name: string) =>
      Number(
        new RegExp(
          `^petstore_outbox_messages_total\\{consumer="webhook-fan-out",outcome="${name}"\\} (\\d+)$`,
          'm',
        ).exec(await metricsText(t))?.[1] ?? 0,
      );
    const retriedBefore = await outcome('retrying');
    const succeededBefore = await outcome('succeeded');
    const s = await subscribe();
    const acceptDeliveries = await refuseInserts(t.dataSource, 'webhook_deliveries');
    const [eventId] = await eventIdsOf((await newPet()).id);
    // `attempts` grows as the message is claimed, so it reads 2 while the second attempt may
    // still run: two failures are two "retrying" outcomes, before the inserts are let through.
    const failedTwice = async () =>
      (await outcome('retrying')) >= retriedBefore + 2 &&
      (
        await t.dataSource.query(
          `SELECT 1 FROM outbox_messages
            WHERE consumer = 'webhook-fan-out' AND event->>'id' = $1 AND attempts >= 2
              AND last_error LIKE '%' || $2 || '%'`,
          [eventId, REFUSED],
        )
      ).length > 0;
    await waitFor(failedTwice, 10_000);
    await acceptDeliveries();

    await settled(s, eventId);
    expect(receiver.acknowledged(s.name)).toHaveLength(1);
    const left = await t.dataSource.query("SELECT 1 FROM outbox_messages WHERE event->>'id' = $1", [
      eventId,
    ]);
    expect(left).toEqual([]);
    await waitFor(async () => (await outcome('succeeded')) > succeededBefore);
  });
});

describe('Webhook deliveries to a refused address (e2e, private addresses not allowed)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp({
      ...FAST_DELIVERY,
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'false',
      WEBHOOKS_PER_USER: '100',
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('should refuse the connection at connect time: the attempt fails, saying which rule refused it and never the address, and the receiver sees nothing', async () => {
    // Stored directly: the API refuses these URLs, but a name's addresses may change after.
    const subscribe = async (url: string) =>
      (
        await t.dataSource.query<{ id: number }[]>(
          `INSERT INTO webhook_subscriptions (url, events, secret, created_at)
           VALUES ($1, '{pet.created}', $2, now() - interval '1 minute') RETURNING id`,
          [url, `whsec_${randomBytes(32).toString('base64')}`],
        )
      )[0].id;
    const literal = await subscribe(receiver.url());
    const named = await subscribe(receiver.url().replace('127.0.0.1', 'localhost'));
    const category = await t.http.post('/v1/categories').set(t.admin).send({ name: 'Refused' });
    await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Rex', categoryId: category.body.id, status: 'available' })
      .expect(201);

    const lastAttemptOf = async (id: number) => {
      let attempt: Record<string, unknown> | undefined;
      await waitFor(async () => {
        const list = await t.http.get(`/v1/webhooks/${id}/deliveries`).set(t.admin).expect(200);
        attempt = list.body.deliveries[0]?.lastAttempt as Record<string, unknown> | undefined;
        return attempt !== undefined;
      });
      return attempt;
    };

    expect(await lastAttemptOf(literal)).toEqual({
      attemptedAt: expect.any(String),
      durationMs: expect.any(Number),
      error: 'address refused: the connected address is a loopback address',
    });
    expect(await lastAttemptOf(named)).toEqual({
      attemptedAt: expect.any(String),
      durationMs: expect.any(Number),
      error: 'address refused: localhost resolves to a loopback address',
    });
    expect(receiver.received).toEqual([]);
  });
});

async function metricsText(t: TestApp): Promise<string> {
  return (await t.http.get('/metrics').expect(200)).text;
}

/** The delivery counters by outcome, and how many attempts the duration histogram holds. */
async function deliveryCounts(t: TestApp): Promise<Record<string, number>> {
  const text = await metricsText(t);
  const value = (series: string) =>
    Number(new RegExp(`^${series} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const count = (outcome: string) =>
    value(`petstore_webhook_deliveries_total\\{outcome="${outcome}"\\}`);
  return {
    succeeded: count('succeeded'),
    retrying: count('retrying'),
    failed: count('failed'),
    timed: value('petstore_webhook_delivery_seconds_count'),
  };
}
