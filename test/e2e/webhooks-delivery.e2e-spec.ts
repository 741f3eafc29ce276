import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { EntityManager } from 'typeorm';
import type { PetEventType } from '../../src/pets/pet-events.js';
import { WebhookDeliveriesRepository } from '../../src/webhooks/delivery/webhook-deliveries.repository.js';
import { expectError } from '../support/errors.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { verified, WebhookReceiver } from '../support/webhook-receiver.js';

const FAST = {
  WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOKS_RETRY_BASE_MS: '10',
  WEBHOOKS_POLL_INTERVAL_MS: '50',
  METRICS_ENABLED: 'true',
};

interface Subscription {
  id: number;
  secret: string;
  name: string;
}

let sequence = 0;
let pets = 0;

describe('Webhook deliveries (e2e, a real receiver on loopback)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  const subscribe = async (
    events: PetEventType[] = ['pet.created', 'pet.updated'],
    url?: string,
  ): Promise<Subscription> => {
    const name = randomUUID();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const [{ id }] = await t.dataSource.query<{ id: number }[]>(
      `INSERT INTO webhook_subscriptions (url, events, secret, created_at)
       VALUES ($1, $2, $3, now() - interval '1 minute') RETURNING id`,
      [url ?? receiver.url(name), events, secret],
    );
    return { id, secret, name };
  };
  /** An event of a pet, fanned out as the publisher does it. */
  const emit = async (
    type: PetEventType,
    petId: number,
    data: Record<string, unknown> = {},
    alongside?: (manager: EntityManager) => Promise<void>,
  ) => {
    sequence += 1;
    const occurredAt = new Date();
    const id = `evt_${randomUUID()}`;
    const body = JSON.stringify({
      type,
      timestamp: occurredAt.toISOString(),
      data: { id: petId, ...data },
    });
    await t.dataSource.transaction(async (manager) => {
      await t.app
        .get(WebhookDeliveriesRepository)
        .insertForEvents([{ sequence, id, type, petId, occurredAt, body }], manager);
      await alongside?.(manager);
    });
    return { id, body };
  };
  const deliveries = (s: Subscription, query = '') =>
    t.http.get(`/v1/webhooks/${s.id}/deliveries${query}`).set(t.admin);
  const deliveryOf = async (s: Subscription, eventId: string) => {
    const list = await deliveries(s).expect(200);
    const found = (list.body.deliveries as { id: number; eventId: string }[]).find(
      (d) => d.eventId === eventId,
    );
    return t.http.get(`/v1/webhooks/${s.id}/deliveries/${found!.id}`).set(t.admin).expect(200);
  };
  const settled = async (s: Subscription, eventId: string, status = 'succeeded') => {
    await waitFor(async () => (await deliveryOf(s, eventId)).body.status === status, 10_000);
    return (await deliveryOf(s, eventId)).body as Record<string, unknown>;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp(FAST);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });
  beforeEach(async () => {
    pets += 1;
    // Each test sees only its own subscriptions' deliveries.
    await t.dataSource.query(`UPDATE webhook_subscriptions SET enabled = false`);
  });

  it('should POST the stored body, signed so that standardwebhooks verifies it', async () => {
    const s = await subscribe(['pet.created']);
    const { id, body } = await emit('pet.created', pets, { name: 'Rex' });

    await waitFor(() => Promise.resolve(receiver.to(s.name).length === 1));

    const [got] = receiver.to(s.name);
    expect(got.body).toBe(body);
    expect(got.headers).toEqual(
      expect.objectContaining({
        'content-type': 'application/json',
        'user-agent': 'petstore-webhooks/1',
        'webhook-id': id,
        'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
        'webhook-signature': expect.stringMatching(/^v1,/),
      }),
    );
    expect(verified(s.secret, got)).toEqual(JSON.parse(body));
    expect(() => verified(`whsec_${randomBytes(32).toString('base64')}`, got)).toThrow();
  });

  it('should retry a receiver that fails twice with the same webhook-id, and log the three attempts', async () => {
    const s = await subscribe();
    receiver.reply(s.name, { status: 500, body: 'down for maintenance' }, 503);
    const { id } = await emit('pet.created', pets);

    const delivery = await settled(s, id);

    const got = receiver.to(s.name);
    expect(got.map((r) => [r.status, r.headers['webhook-id']])).toEqual([
      [500, id],
      [503, id],
      [204, id],
    ]);
    expect(receiver.acknowledged(s.name)).toHaveLength(1);
    for (const attempt of got) expect(verified(s.secret, attempt)).toBeDefined();
    expect(delivery).toEqual({
      id: expect.any(Number),
      eventId: id,
      eventType: 'pet.created',
      petId: pets,
      status: 'succeeded',
      attempts: 3,
      createdAt: expect.any(String),
      completedAt: expect.any(String),
      lastAttempt: {
        attemptedAt: expect.any(String),
        statusCode: 204,
        durationMs: expect.any(Number),
      },
      attemptLog: [
        { attemptedAt: expect.any(String), statusCode: 204, durationMs: expect.any(Number) },
        {
          attemptedAt: expect.any(String),
          statusCode: 503,
          durationMs: expect.any(Number),
          error: 'answered with status 503',
        },
        {
          attemptedAt: expect.any(String),
          statusCode: 500,
          durationMs: expect.any(Number),
          error: 'answered with status 500',
          responseBody: 'down for maintenance',
        },
      ],
    });
  });

  it('should deliver a pet’s events in order even when the first one’s first attempt fails', async () => {
    const s = await subscribe();
    receiver.reply(s.name, 500);
    const sent = [];
    sent.push(await emit('pet.created', pets));
    for (let i = 0; i < 4; i += 1) sent.push(await emit('pet.updated', pets, { age: i }));

    await waitFor(() => Promise.resolve(receiver.acknowledged(s.name).length === 5), 10_000);

    expect(receiver.acknowledged(s.name).map((r) => r.headers['webhook-id'])).toEqual(
      sent.map((e) => e.id),
    );
    expect(receiver.to(s.name)[0]).toEqual(
      expect.objectContaining({
        status: 500,
        headers: expect.objectContaining({ 'webhook-id': sent[0].id }),
      }),
    );
  });

  it('should count a redirect as a failed attempt and not follow it', async () => {
    const s = await subscribe();
    const elsewhere = randomUUID();
    receiver.reply(s.name, { status: 302, headers: { location: receiver.url(elsewhere) } });
    const { id } = await emit('pet.created', pets);

    const delivery = await settled(s, id);

    expect(receiver.to(elsewhere)).toEqual([]);
    expect((delivery.attemptLog as unknown[])[1]).toEqual({
      attemptedAt: expect.any(String),
      statusCode: 302,
      durationMs: expect.any(Number),
      error: 'redirect not followed (302)',
    });
  });

  it('should re-send a delivery at once on retry, with the same webhook-id', async () => {
    const s = await subscribe();
    const { id } = await emit('pet.created', pets);
    const delivery = await settled(s, id);

    const res = await t.http
      .post(`/v1/webhooks/${s.id}/deliveries/${delivery.id as number}/retry`)
      .set(t.admin)
      .expect(202);

    expect(res.body).toEqual(
      expect.objectContaining({
        id: delivery.id,
        status: 'pending',
        nextAttemptAt: expect.any(String),
      }),
    );
    expect(res.body.completedAt).toBeUndefined();
    await waitFor(() => Promise.resolve(receiver.to(s.name).length === 2));
    expect(receiver.to(s.name).map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect((await settled(s, id)).attempts).toBe(2);
  });

  it('should mark a delivery failed once it has been retried for 24 hours', async () => {
    const s = await subscribe();
    receiver.answer(s.name, 500);
    const { id } = await emit('pet.created', pets);
    await waitFor(async () => (await deliveryOf(s, id)).body.attempts >= 1);
    // A day passes: the next failure is the last.
    await t.dataSource.query(
      `UPDATE webhook_deliveries SET created_at = created_at - interval '24 hours'
        WHERE subscription_id = $1`,
      [s.id],
    );

    const delivery = await settled(s, id, 'failed');

    expect(delivery.nextAttemptAt).toBeUndefined();
    expect(delivery.completedAt).toEqual(expect.any(String));
  });

  it('should disable a subscription whose receiver has failed for 24 hours, and say why', async () => {
    const s = await subscribe();
    receiver.answer(s.name, 500);
    const first = await emit('pet.created', pets);
    await waitFor(async () => (await deliveryOf(s, first.id)).body.attempts >= 1);
    await t.dataSource.query(
      `UPDATE webhook_subscriptions SET failing_since = failing_since - interval '24 hours'
        WHERE id = $1`,
      [s.id],
    );

    await waitFor(async () => {
      const [row] = await t.dataSource.query<{ enabled: boolean }[]>(
        `SELECT enabled FROM webhook_subscriptions WHERE id = $1`,
        [s.id],
      );
      return !row.enabled;
    });

    const [row] = await t.dataSource.query<{ disabledReason: string }[]>(
      `SELECT disabled_reason AS "disabledReason" FROM webhook_subscriptions WHERE id = $1`,
      [s.id],
    );
    expect(row.disabledReason).toBe(
      'Every delivery failed for 24 hours (last: answered with status 500)',
    );
    const seen = receiver.to(s.name).length;
    await t.dataSource.query(`UPDATE webhook_deliveries SET next_attempt_at = now()`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to(s.name)).toHaveLength(seen);
  });

  it('should count deliveries by outcome in the metrics', async () => {
    const s = await subscribe();
    const before = await deliveryCounts(t);
    receiver.reply(s.name, 500);
    const { id } = await emit('pet.created', pets);
    await settled(s, id);

    const after = await deliveryCounts(t);

    expect(after.succeeded - before.succeeded).toBe(1);
    expect(after.retrying - before.retrying).toBe(1);
    expect(await metricsText(t)).toMatch(/^petstore_webhook_delivery_seconds_count \d+$/m);
  });

  describe('the delivery log', () => {
    it('should list a webhook’s deliveries newest first, filtered by status, paged', async () => {
      const s = await subscribe();
      const first = await emit('pet.created', pets);
      const second = await emit('pet.created', pets + 1000);
      await settled(s, first.id);
      await settled(s, second.id);

      const res = await deliveries(s, '?limit=1').expect(200);

      expect(res.body).toEqual({
        deliveries: [
          {
            id: expect.any(Number),
            eventId: second.id,
            eventType: 'pet.created',
            petId: pets + 1000,
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
      expect((await deliveries(s, '?status=pending').expect(200)).body.deliveries).toEqual([]);
      expect(
        (await deliveries(s, '?status=succeeded&offset=1').expect(200)).body.deliveries,
      ).toEqual([expect.objectContaining({ eventId: first.id })]);
    });

    it('should show a waiting delivery’s next attempt, and no completion or attempt yet', async () => {
      const s = await subscribe();
      // Disabled as it is fanned out: the delivery waits.
      const { id } = await emit('pet.created', pets, {}, async (manager) => {
        await manager.query(`UPDATE webhook_subscriptions SET enabled = false WHERE id = $1`, [
          s.id,
        ]);
      });

      const res = await deliveries(s).expect(200);

      expect(res.body.deliveries).toEqual([
        {
          id: expect.any(Number),
          eventId: id,
          eventType: 'pet.created',
          petId: pets,
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
      const { id } = await emit('pet.created', pets);
      const delivery = await settled(s, id);

      for (const res of [
        await t.http.get(`/v1/webhooks/${s.id}/deliveries/999999`).set(t.admin),
        await t.http
          .get(`/v1/webhooks/${other.id}/deliveries/${delivery.id as number}`)
          .set(t.admin),
        await t.http
          .post(`/v1/webhooks/${other.id}/deliveries/${delivery.id as number}/retry`)
          .set(t.admin),
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

    it('should be for admins only', async () => {
      const s = await subscribe();
      expectError(await deliveries(s).set(t.user), 403, 'INSUFFICIENT_PERMISSIONS');
      expectError(
        await t.http.post(`/v1/webhooks/${s.id}/deliveries/1/retry`).set(t.user),
        403,
        'INSUFFICIENT_PERMISSIONS',
      );
      expectError(
        await t.http.get(`/v1/webhooks/${s.id}/deliveries`),
        401,
        'AUTHENTICATION_REQUIRED',
      );
    });
  });
});

describe('Webhook deliveries to a refused address (e2e, private addresses not allowed)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp({ ...FAST, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'false' });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('should refuse the connection at connect time: the attempt fails and the receiver sees nothing', async () => {
    // Stored directly: the API would have refused the URL. DNS may change its answer later.
    const [{ id }] = await t.dataSource.query<{ id: number }[]>(
      `INSERT INTO webhook_subscriptions (url, events, secret, created_at)
       VALUES ($1, '{pet.created}', 'whsec_c2VjcmV0', now() - interval '1 minute') RETURNING id`,
      [receiver.url()],
    );
    const body = JSON.stringify({
      type: 'pet.created',
      timestamp: new Date().toISOString(),
      data: {},
    });
    await t.dataSource.transaction((manager) =>
      t.app.get(WebhookDeliveriesRepository).insertForEvents(
        [
          {
            sequence: 1,
            id: 'evt_refused',
            type: 'pet.created',
            petId: 1,
            occurredAt: new Date(),
            body,
          },
        ],
        manager,
      ),
    );

    let attempt: Record<string, unknown> | undefined;
    await waitFor(async () => {
      const list = await t.http.get(`/v1/webhooks/${id}/deliveries`).set(t.admin).expect(200);
      attempt = list.body.deliveries[0]?.lastAttempt as Record<string, unknown> | undefined;
      return attempt !== undefined;
    });

    expect(attempt).toEqual({
      attemptedAt: expect.any(String),
      durationMs: expect.any(Number),
      error: expect.stringMatching(/^address refused: 127\.0\.0\.1 is a loopback address/),
    });
    expect(receiver.received).toEqual([]);
  });
});

async function metricsText(t: TestApp): Promise<string> {
  return (await t.http.get('/metrics').expect(200)).text;
}

async function deliveryCounts(t: TestApp): Promise<Record<string, number>> {
  const text = await metricsText(t);
  const count = (outcome: string) =>
    Number(
      new RegExp(`^petstore_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(
        text,
      )?.[1] ?? 0,
    );
  return { succeeded: count('succeeded'), retrying: count('retrying'), failed: count('failed') };
}
