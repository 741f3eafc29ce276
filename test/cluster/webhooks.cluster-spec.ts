import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { waitFor } from '../support/wait.js';
import { FAST_DELIVERY, verified, WebhookReceiver } from '../support/webhook-receiver.js';
import { TestCluster, withServers } from './cluster-harness.js';

jest.setTimeout(240_000);

const PETS = 6;
const UPDATES = 4;

interface Event {
  type: string;
  data: { id: number; age?: number };
}

withServers('Webhooks from three instances (cluster)', () => {
  let t: TestCluster;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await TestCluster.start(FAST_DELIVERY);
  }, 240_000);
  afterAll(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  it('should deliver every event once, in order per pet', async () => {
    const name = randomUUID();
    const webhook = await t.json('POST', '/v1/webhooks', {
      url: receiver.url(name),
      events: ['pet.created', 'pet.updated'],
    });
    expect(webhook.status).toBe(201);
    const categoryId = await t.category();

    // Pets side by side through nginx (so through all three), each one's changes in turn.
    const petIds = await Promise.all(
      Array.from({ length: PETS }, async (_, i) => {
        const pet = await t.json('POST', '/v1/pets', {
          name: `Hooked ${i}`,
          categoryId,
          status: 'available',
        });
        expect(pet.status).toBe(201);
        const id = pet.body.id as number;
        for (let age = 1; age <= UPDATES; age += 1) {
          expect((await t.json('PUT', `/v1/pets/${id}`, { age })).status).toBe(200);
        }
        return id;
      }),
    );

    const total = PETS * (1 + UPDATES);
    const deliveries = async () =>
      (await t.request(`/v1/webhooks/${webhook.body.id as number}/deliveries?limit=100`)).body
        .deliveries as { status: string; attempts: number }[];
    await waitFor(async () => {
      const all = await deliveries();
      return all.length === total && all.every((d) => d.status === 'succeeded');
    }, 60_000);
    // Recorded as succeeded after each send: nothing more is on its way.
    const received = receiver.to(name);
    expect(received).toHaveLength(total);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(total);

    const events = received.map((r) => verified(webhook.body.secret as string, r) as Event);
    for (const id of petIds) {
      const own = events.filter((event) => event.data.id === id);
      expect(own.map((event) => event.type)).toEqual([
        'pet.created',
        ...Array.from({ length: UPDATES }, () => 'pet.updated'),
      ]);
      expect(own.slice(1).map((event) => event.data.age)).toEqual([1, 2, 3, 4]);
    }
  });
});
