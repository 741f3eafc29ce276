import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createUser } from '../../support/auth.js';
import { expectError } from '../../support/errors.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, verified, WebhookReceiver } from '../../support/webhook-receiver.js';

const ADOPTION_TYPES = [
  'adoption.requested',
  'adoption.approved',
  'adoption.completed',
  'adoption.rejected',
  'adoption.cancelled',
  'adoption.expired',
  'adoption.returned',
];
const PET_TYPES = [
  'pet.created',
  'pet.updated',
  'pet.status_changed',
  'pet.deleted',
  'pet.image_added',
];

interface Subscription {
  id: number;
  secret: string;
  /** Its path on the receiver. */
  name: string;
}

describe('Webhooks of adoptions (e2e, a real receiver)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  const subscribe = async (events: string[]): Promise<Subscription> => {
    const name = randomUUID();
    const res = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url(name), events })
      .expect(201);
    return { id: res.body.id, secret: res.body.secret, name };
  };
  const deliveryTypes = async (s: Subscription) =>
    (
      (await t.http.get(`/v1/webhooks/${s.id}/deliveries`).set(t.admin).expect(200)).body
        .deliveries as { eventType: string }[]
    ).map((d) => d.eventType);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp(FAST_DELIVERY);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('sends an adoption’s events, in order, signed, with the Adoption as data; pet.* subscriptions get none', async () => {
    const adoptions = await subscribe(ADOPTION_TYPES);
    const pets = await subscribe(PET_TYPES);
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);

    const requested = (
      await t.http.post('/v1/adoptions').set(adopter.headers).send({ petId }).expect(201)
    ).body;
    const approved = (
      await t.http.post(`/v1/adoptions/${requested.id}/approve`).set(t.user).expect(200)
    ).body;
    const completed = (
      await t.http.post(`/v1/adoptions/${requested.id}/complete`).set(t.user).expect(200)
    ).body;
    await waitFor(() => Promise.resolve(receiver.to(adoptions.name).length >= 3), 10_000);

    const got = receiver.to(adoptions.name);
    const payloads = got.map((r) => verified(adoptions.secret, r) as Record<string, unknown>);
    expect(payloads.map((p) => p.type)).toEqual([
      'adoption.requested',
      'adoption.approved',
      'adoption.completed',
    ]);
    expect(payloads.map((p) => p.data)).toEqual([requested, approved, completed]);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(3);
    // The fan-out adds every subscription's deliveries of an event at once: those of the
    // pet.* subscription are in its log by now.
    expect(await deliveryTypes(pets)).toEqual([
      'pet.status_changed',
      'pet.status_changed',
      'pet.created',
    ]);
  });

  it('sends adoption.cancelled for an open adoption whose adopter is deleted', async () => {
    const adoptions = await subscribe(ADOPTION_TYPES);
    const adopter = await createUser(t, { role: 'customer' });
    const petId = await createPet(t);
    const requested = (
      await t.http.post('/v1/adoptions').set(adopter.headers).send({ petId }).expect(201)
    ).body;

    await t.http.delete(`/v1/users/${adopter.id}`).set(t.admin).expect(200);
    await waitFor(() => Promise.resolve(receiver.to(adoptions.name).length >= 2), 10_000);

    const payloads = receiver
      .to(adoptions.name)
      .map((r) => verified(adoptions.secret, r) as { type: string; data: Record<string, unknown> });
    expect(payloads.map((p) => p.type)).toEqual(['adoption.requested', 'adoption.cancelled']);
    expect(payloads[1].data).toMatchObject({
      id: requested.id,
      status: 'cancelled',
      pet: { id: petId, status: 'available' },
      adopter: { id: adopter.id, username: adopter.username },
    });
  });

  it('takes the adoption.* types in a subscription, and no other adoption event', async () => {
    const res = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url('extended'), events: ['adoption.extended'] })
      .expect(400);
    expectError(res, 400, 'VALIDATION_ERROR');
  });
});
