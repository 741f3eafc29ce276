import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { refuseInserts, REFUSED } from '../../support/refused-inserts.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, WebhookReceiver } from '../../support/webhook-receiver.js';

/*
 * The outbox's retries end (docs/events.md, "The outbox"): a message whose every attempt
 * failed is kept for an operator, logged, counted as failed, and no longer holds its
 * subject's later messages. The webhooks' fan-out is the consumer; a trigger makes it fail.
 */
describe('Outbox (e2e, the webhooks fan-out as its consumer)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let categoryId: number;
  const path = randomUUID();

  const messagesOf = (eventId: string) =>
    t.dataSource.query<{ attempts: number; failed: boolean; lastError: string }[]>(
      `SELECT attempts, failed_at IS NOT NULL AS failed, last_error AS "lastError"
         FROM outbox_messages WHERE consumer = 'webhook-fan-out' AND event->>'id' = $1`,
      [eventId],
    );
  /** The pet's event ids, oldest first. */
  const eventIdsOf = async (petId: number) => {
    const res = await t.http.get(`/v1/pets/${petId}/history`).set(t.admin).expect(200);
    return (res.body.events as { id: string }[]).map((e) => e.id).reverse();
  };
  const failedCount = async () => {
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    const series =
      /^petstore_outbox_messages_total\{consumer="webhook-fan-out",outcome="failed"\} (\d+)$/m;
    return Number(series.exec(metrics)?.[1] ?? 0);
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp({
      ...FAST_DELIVERY,
      OUTBOX_MAX_ATTEMPTS: '2',
      METRICS_ENABLED: 'true',
    });
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Outboxed' }).expect(201)
    ).body.id;
    await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url(path), events: ['pet.created', 'pet.updated'] })
      .expect(201);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('should keep a message whose every attempt failed, log and count it, and let its subject’s later events through', async () => {
    const acceptDeliveries = await refuseInserts(t.dataSource, 'webhook_deliveries');
    const pet = (
      await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Rex', categoryId, status: 'available' })
        .expect(201)
    ).body as { id: number };
    const [created] = await eventIdsOf(pet.id);
    await waitFor(async () => (await messagesOf(created))[0]?.failed === true, 10_000);
    await acceptDeliveries();

    expect(await messagesOf(created)).toEqual([
      { attempts: 2, failed: true, lastError: expect.stringContaining(REFUSED) },
    ]);
    expect(await failedCount()).toBe(1);
    const logged = testLogs.take((line) => String(line.msg).includes(REFUSED));
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'error',
        context: 'Outbox',
        msg: expect.stringContaining(
          `webhook-fan-out failed on pet.created (pet:${pet.id}, attempt 2): `,
        ),
      }),
    ]);
    expect(logged[0].msg).toContain('1 kept as failed, after their last attempt');

    await t.http.put(`/v1/pets/${pet.id}`).set(t.user).send({ name: 'Max' }).expect(200);
    const [, updated] = await eventIdsOf(pet.id);
    await waitFor(() => Promise.resolve(receiver.acknowledged(path).length === 1), 10_000);
    expect(receiver.acknowledged(path).map((r) => JSON.parse(r.body).type)).toEqual([
      'pet.updated',
    ]);
    expect(await messagesOf(updated)).toEqual([]);
  });
});
