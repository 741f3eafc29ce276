import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { PetEventType } from '../../../src/pets/pet-events.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, WebhookReceiver } from '../../support/webhook-receiver.js';

interface Subscription {
  id: number;
  /** Its path on the receiver. */
  name: string;
}

/*
 * A pet's change gives the webhooks' fan-out an outbox message only when an enabled
 * subscription wants its type (docs/events.md, "Interest"). What the fan-out was handed shows
 * in /metrics: its messages done, once none of them is queued any more.
 */
describe('Webhook interest (e2e, the fan-out only for wanted events)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let categoryId: number;

  const subscribe = async (events: PetEventType[]): Promise<Subscription> => {
    const name = randomUUID();
    const res = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url(name), events })
      .expect(201);
    return { id: res.body.id, name };
  };
  const newPet = async () =>
    (
      await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Rex', categoryId, status: 'available' })
        .expect(201)
    ).body as { id: number };
  const rename = (petId: number) =>
    t.http.put(`/v1/pets/${petId}`).set(t.user).send({ name: 'Max' }).expect(200);
  const remove = (petId: number) => t.http.delete(`/v1/pets/${petId}`).set(t.user).expect(200);
  /** The fan-out's series: its messages done since the start, and those still queued. */
  const fanOutSeries = async () => {
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    const value = (name: string, labels: string) =>
      Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    return {
      done: value(
        'petstore_outbox_messages_total',
        'consumer="webhook-fan-out",outcome="succeeded"',
      ),
      queued: value('petstore_outbox_messages_queued', 'consumer="webhook-fan-out"'),
    };
  };
  /**
   * How many messages `changes` gave the fan-out: their rows are written before the answers,
   * so once none is queued, all were handed over; a later scrape has them counted (a scrape
   * reads the counter before the queue).
   */
  const messagesOf = async (changes: () => Promise<unknown>) => {
    const before = await fanOutSeries();
    expect(before.queued).toBe(0);
    await changes();
    await waitFor(async () => (await fanOutSeries()).queued === 0, 10_000);
    return (await fanOutSeries()).done - before.done;
  };
  const received = (s: Subscription, count: number) =>
    waitFor(() => Promise.resolve(receiver.to(s.name).length >= count), 10_000);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // The admin owns more subscriptions here than an account may by default.
    t = await createTestApp({
      ...FAST_DELIVERY,
      METRICS_ENABLED: 'true',
      WEBHOOKS_PER_USER: '100',
    });
    categoryId = (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Wanted' }).expect(201)
    ).body.id;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });
  beforeEach(async () => {
    await t.dataSource.query('DELETE FROM webhook_subscriptions');
  });

  it('should hand the fan-out nothing while no subscription exists, and deliver the next create once one wants it', async () => {
    expect(
      await messagesOf(async () => {
        const pet = await newPet();
        await rename(pet.id);
        await remove(pet.id);
      }),
    ).toBe(0);

    const s = await subscribe(['pet.created']);
    let created = { id: 0 };
    expect(
      await messagesOf(async () => {
        created = await newPet();
      }),
    ).toBe(1);
    await received(s, 1);
    expect(JSON.parse(receiver.to(s.name)[0].body)).toMatchObject({
      type: 'pet.created',
      data: { id: created.id },
    });
  });

  it('should hand the fan-out only the types a subscription wants', async () => {
    await subscribe(['pet.updated']);

    expect(await messagesOf(newPet)).toBe(0);
    expect(await messagesOf(async () => rename((await newPet()).id))).toBe(1);
  });

  it('should stop handing the fan-out a type once its subscription is disabled, narrowed or deleted', async () => {
    const s = await subscribe(['pet.created', 'pet.updated']);
    const change = (body: object) =>
      t.http.put(`/v1/webhooks/${s.id}`).set(t.admin).send(body).expect(200);
    expect(await messagesOf(newPet)).toBe(1);

    await change({ enabled: false });
    expect(await messagesOf(newPet)).toBe(0);

    await change({ enabled: true });
    expect(await messagesOf(newPet)).toBe(1);

    await change({ events: ['pet.updated'] });
    expect(await messagesOf(newPet)).toBe(0);

    await change({ events: ['pet.created'] });
    await t.http.delete(`/v1/webhooks/${s.id}`).set(t.admin).expect(200);
    expect(await messagesOf(newPet)).toBe(0);
  });

  it('should keep delivering to one subscription when another of the same type is deleted', async () => {
    const kept = await subscribe(['pet.created']);
    const deleted = await subscribe(['pet.created']);
    await t.http.delete(`/v1/webhooks/${deleted.id}`).set(t.admin).expect(200);

    const created = await newPet();

    await received(kept, 1);
    expect(JSON.parse(receiver.to(kept.name)[0].body)).toMatchObject({
      type: 'pet.created',
      data: { id: created.id },
    });
    expect(receiver.to(deleted.name)).toEqual([]);
  });
});
