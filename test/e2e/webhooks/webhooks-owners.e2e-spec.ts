import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createUser, type CreatedUser, type Headers } from '../../support/auth.js';
import { expectError, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, verified, WebhookReceiver } from '../../support/webhook-receiver.js';

// Room for the admin's subscriptions of the whole file, which count against its own cap.
const PER_USER = 20;

interface Subscription {
  id: number;
  secret: string;
  /** Its path on the receiver. */
  name: string;
}

interface Delivery {
  id: number;
  eventId: string;
  eventType: string;
  status: string;
}

/*
 * Webhooks for integrators (docs/events.md, "Webhooks"): any staff account manages its own
 * subscriptions and sees only their deliveries; admins see and manage every one; a cap per
 * owner; filters on pet events, applied where deliveries are made; and only the events the
 * owner may read. Delivered to a real receiver, signed, as for an admin.
 */
describe('Webhooks of integrators (e2e, a real receiver)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let alice: CreatedUser;
  let bob: CreatedUser;

  const subscribe = async (
    as: Headers,
    fields: Record<string, unknown> = {},
  ): Promise<Subscription> => {
    const name = randomUUID();
    const res = await t.http
      .post('/v1/webhooks')
      .set(as)
      .send({ url: receiver.url(name), events: ['pet.created', 'pet.updated'], ...fields })
      .expect(201);
    return { id: res.body.id, secret: res.body.secret, name };
  };
  const deliveriesOf = async (s: Subscription, as: Headers = t.admin): Promise<Delivery[]> =>
    (await t.http.get(`/v1/webhooks/${s.id}/deliveries`).set(as).expect(200)).body.deliveries;
  /** Waits until `s` has a delivery of the event, and answers it. */
  const deliveryOfEvent = async (s: Subscription, eventId: string): Promise<Delivery> => {
    let found: Delivery | undefined;
    await waitFor(async () => {
      found = (await deliveriesOf(s)).find((d) => d.eventId === eventId);
      return found !== undefined;
    }, 10_000);
    return found!;
  };
  let categories = 0;
  const newCategory = async (): Promise<number> => {
    categories += 1;
    const name = `Integrators ${categories}`;
    return (await t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201)).body.id;
  };
  /** A pet created by the plain user, and the id of its pet.created event. */
  const newPet = async (
    fields: Record<string, unknown>,
  ): Promise<{ id: number; event: string }> => {
    const pet = await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name: 'Rex', status: 'available', ...fields })
      .expect(201);
    const history = await t.http.get(`/v1/pets/${pet.body.id}/history`).set(t.user).expect(200);
    return { id: pet.body.id, event: history.body.events[0].id };
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp({ ...FAST_DELIVERY, WEBHOOKS_PER_USER: String(PER_USER) });
    alice = await createUser(t, { role: 'user' });
    bob = await createUser(t, { role: 'user' });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  describe('isolation', () => {
    let mine: Subscription;
    let theirs: Subscription;
    let theirDelivery: Delivery;

    beforeAll(async () => {
      mine = await subscribe(alice.headers);
      theirs = await subscribe(bob.headers);
      const pet = await newPet({ categoryId: await newCategory() });
      theirDelivery = await deliveryOfEvent(theirs, pet.event);
      await deliveryOfEvent(mine, pet.event);
    });

    it('should list a user’s own subscriptions only, each with its owner', async () => {
      const res = await t.http.get('/v1/webhooks').set(alice.headers).expect(200);

      expect(res.body.webhooks).toEqual([
        expect.objectContaining({ id: mine.id, owner: { id: alice.id, username: alice.username } }),
      ]);
      expect(res.body.pagination.total).toBe(1);
    });

    it('should answer 404 WEBHOOK_NOT_FOUND to every route for someone else’s subscription, changing nothing', async () => {
      const before = (await t.http.get(`/v1/webhooks/${theirs.id}`).set(bob.headers).expect(200))
        .body;
      const requests = [
        t.http.get(`/v1/webhooks/${theirs.id}`),
        t.http.put(`/v1/webhooks/${theirs.id}`).send({ enabled: false }),
        t.http.delete(`/v1/webhooks/${theirs.id}`),
        t.http.post(`/v1/webhooks/${theirs.id}/rotate-secret`),
        t.http.get(`/v1/webhooks/${theirs.id}/deliveries`),
        t.http.get(`/v1/webhooks/${theirs.id}/deliveries/${theirDelivery.id}`),
        t.http.post(`/v1/webhooks/${theirs.id}/deliveries/${theirDelivery.id}/retry`),
      ];

      for (const request of requests) {
        expectError(await request.set(alice.headers), 404, 'WEBHOOK_NOT_FOUND');
      }

      const after = (await t.http.get(`/v1/webhooks/${theirs.id}`).set(bob.headers).expect(200))
        .body;
      expect(after).toEqual(before);
      const [delivery] = await deliveriesOf(theirs, bob.headers);
      expect(delivery).toEqual(expect.objectContaining({ id: theirDelivery.id }));
    });

    it('should not show someone else’s delivery under one’s own subscription', async () => {
      expectError(
        await t.http
          .get(`/v1/webhooks/${mine.id}/deliveries/${theirDelivery.id}`)
          .set(alice.headers),
        404,
        'WEBHOOK_DELIVERY_NOT_FOUND',
      );
      expectError(
        await t.http
          .post(`/v1/webhooks/${mine.id}/deliveries/${theirDelivery.id}/retry`)
          .set(alice.headers),
        404,
        'WEBHOOK_DELIVERY_NOT_FOUND',
      );
    });

    it('should let the owner read, change and delete its own', async () => {
      const own = await subscribe(alice.headers);

      await t.http.get(`/v1/webhooks/${own.id}`).set(alice.headers).expect(200);
      const changed = await t.http
        .put(`/v1/webhooks/${own.id}`)
        .set(alice.headers)
        .send({ description: 'Mine' })
        .expect(200);
      expect(changed.body).toEqual(
        expect.objectContaining({
          description: 'Mine',
          owner: { id: alice.id, username: alice.username },
        }),
      );
      await t.http.delete(`/v1/webhooks/${own.id}`).set(alice.headers).expect(200);
      expectError(
        await t.http.get(`/v1/webhooks/${own.id}`).set(alice.headers),
        404,
        'WEBHOOK_NOT_FOUND',
      );
    });

    it('should show admins every subscription with its owner, and let them manage any', async () => {
      const res = await t.http.get('/v1/webhooks').set(t.admin).expect(200);

      const owners = new Map(
        (res.body.webhooks as { id: number; owner?: { id: number } }[]).map((w) => [
          w.id,
          w.owner?.id,
        ]),
      );
      expect(owners.get(mine.id)).toBe(alice.id);
      expect(owners.get(theirs.id)).toBe(bob.id);
      const [delivery] = await deliveriesOf(theirs, t.admin);
      expect(delivery.id).toBe(theirDelivery.id);
      await t.http
        .get(`/v1/webhooks/${theirs.id}/deliveries/${theirDelivery.id}`)
        .set(t.admin)
        .expect(200);
      const changed = await t.http
        .put(`/v1/webhooks/${theirs.id}`)
        .set(t.admin)
        .send({ description: 'Seen by an admin' })
        .expect(200);
      // The owner stays the user's.
      expect(changed.body.owner).toEqual({ id: bob.id, username: bob.username });
    });

    it('should delete a deleted user’s subscriptions', async () => {
      const leaving = await createUser(t, { role: 'user' });
      const its = await subscribe(leaving.headers);

      await t.http.delete(`/v1/users/${leaving.id}`).set(t.admin).expect(200);

      expectError(
        await t.http.get(`/v1/webhooks/${its.id}`).set(t.admin),
        404,
        'WEBHOOK_NOT_FOUND',
      );
    });
  });

  describe('the cap', () => {
    it(`should refuse a user’s subscription beyond WEBHOOKS_PER_USER with 409 WEBHOOK_LIMIT_REACHED, others unaffected`, async () => {
      const carol = await createUser(t, { role: 'user' });
      const made: Subscription[] = [];
      for (let i = 0; i < PER_USER; i += 1) made.push(await subscribe(carol.headers));

      const res = await t.http
        .post('/v1/webhooks')
        .set(carol.headers)
        .send({ url: receiver.url('one-too-many'), events: ['pet.created'] });

      expectError(res, 409, 'WEBHOOK_LIMIT_REACHED');
      expect(res.body.details).toEqual({ limit: PER_USER });
      const list = await t.http.get('/v1/webhooks').set(carol.headers).expect(200);
      expect(list.body.pagination.total).toBe(PER_USER);
      await subscribe(t.admin);
      await t.http.delete(`/v1/webhooks/${made[0].id}`).set(carol.headers).expect(200);
      await subscribe(carol.headers);
    });
  });

  describe('filters', () => {
    it('should show the filters, replace them as a whole, and clear them with null', async () => {
      const s = await subscribe(alice.headers, {
        filters: { categoryIds: [1, 2], statuses: ['sold'], tags: [' calm '] },
      });

      const shown = await t.http.get(`/v1/webhooks/${s.id}`).set(alice.headers).expect(200);
      expect(shown.body.filters).toEqual({
        categoryIds: [1, 2],
        statuses: ['sold'],
        tags: ['calm'],
      });
      const replaced = await t.http
        .put(`/v1/webhooks/${s.id}`)
        .set(alice.headers)
        .send({ filters: { statuses: ['available'] } })
        .expect(200);
      expect(replaced.body.filters).toEqual({ statuses: ['available'] });
      const cleared = await t.http
        .put(`/v1/webhooks/${s.id}`)
        .set(alice.headers)
        .send({ filters: null })
        .expect(200);
      expect(cleared.body).not.toHaveProperty('filters');
      await t.http.delete(`/v1/webhooks/${s.id}`).set(alice.headers).expect(200);
    });

    it.each([
      ['filters that are not an object', 'sold', 'filters'],
      ['an empty categoryIds', { categoryIds: [] }, 'filters.categoryIds'],
      ['a category id that is not a positive integer', { categoryIds: [0] }, 'filters.categoryIds'],
      ['a repeated category id', { categoryIds: [3, 3] }, 'filters.categoryIds'],
      ['an unknown status', { statuses: ['lost'] }, 'filters.statuses'],
      ['an empty tag', { tags: [' '] }, 'filters.tags'],
      ['a tag of 51 characters', { tags: ['t'.repeat(51)] }, 'filters.tags'],
      ['an unknown filter', { colour: ['brown'] }, 'filters.colour'],
    ])('should refuse %s with 400 naming it', async (_name, filters, field) => {
      const res = await t.http
        .post('/v1/webhooks')
        .set(alice.headers)
        .send({ url: receiver.url('refused'), events: ['pet.created'], filters });

      expectValidationError(res, [field]);
    });

    it('should deliver a pet event only to the subscriptions whose every filter matches, making no delivery for the others', async () => {
      const [dogs, cats] = [await newCategory(), await newCategory()];
      // Unfiltered: its delivery shows the event has been fanned out to every subscription.
      const witness = await subscribe(t.admin);
      const byCategory = await subscribe(t.admin, { filters: { categoryIds: [dogs] } });
      const byStatus = await subscribe(t.admin, { filters: { statuses: ['sold'] } });
      const byTag = await subscribe(t.admin, { filters: { tags: ['CALM', 'small'] } });
      const byAll = await subscribe(t.admin, {
        filters: { categoryIds: [dogs], statuses: ['sold'], tags: ['calm'] },
      });
      const calmDog = await newPet({ categoryId: dogs, tags: ['Calm'] });
      const soldCat = await newPet({ categoryId: cats, status: 'sold', tags: ['loud'] });
      const soldCalmDog = await newPet({ categoryId: dogs, status: 'sold', tags: ['calm'] });
      const events = [calmDog, soldCat, soldCalmDog].map((pet) => pet.event);
      for (const event of events) await deliveryOfEvent(witness, event);

      const eventsOf = async (s: Subscription) =>
        (await deliveriesOf(s)).map((d) => d.eventId).sort();
      expect(await eventsOf(byCategory)).toEqual([calmDog.event, soldCalmDog.event].sort());
      expect(await eventsOf(byStatus)).toEqual([soldCat.event, soldCalmDog.event].sort());
      expect(await eventsOf(byTag)).toEqual([calmDog.event, soldCalmDog.event].sort());
      expect(await eventsOf(byAll)).toEqual([soldCalmDog.event]);
      await waitFor(() => Promise.resolve(receiver.to(byAll.name).length === 1), 10_000);
      expect(receiver.to(byAll.name).map((r) => r.headers['webhook-id'])).toEqual([
        soldCalmDog.event,
      ]);
    });

    it('should match the status a move leads to', async () => {
      const witness = await subscribe(t.admin, { events: ['pet.status_changed'] });
      const sold = await subscribe(t.admin, {
        events: ['pet.status_changed'],
        filters: { statuses: ['sold'] },
      });
      const pet = await newPet({ categoryId: await newCategory() });
      await t.http.put(`/v1/pets/${pet.id}`).set(t.user).send({ status: 'pending' }).expect(200);
      await t.http.put(`/v1/pets/${pet.id}`).set(t.user).send({ status: 'sold' }).expect(200);
      const history = await t.http.get(`/v1/pets/${pet.id}/history`).set(t.user).expect(200);
      const [toSold, toPending] = (history.body.events as { id: string }[]).map((e) => e.id);
      await deliveryOfEvent(witness, toSold);
      await deliveryOfEvent(witness, toPending);

      expect((await deliveriesOf(sold)).map((d) => d.eventId)).toEqual([toSold]);
    });
  });

  describe('what the owner may read', () => {
    it('should deliver nothing to an owner demoted to customer or disabled, and again once staff', async () => {
      const dave = await createUser(t, { role: 'user' });
      const erin = await createUser(t, { role: 'user' });
      const witness = await subscribe(t.admin);
      const daves = await subscribe(dave.headers);
      const erins = await subscribe(erin.headers);
      await t.http.put(`/v1/users/${dave.id}`).set(t.admin).send({ role: 'customer' }).expect(200);
      await t.http.put(`/v1/users/${erin.id}`).set(t.admin).send({ userStatus: 1 }).expect(200);

      const unread = await newPet({ categoryId: await newCategory() });
      await deliveryOfEvent(witness, unread.event);

      expect(await deliveriesOf(daves)).toEqual([]);
      expect(await deliveriesOf(erins)).toEqual([]);

      await t.http.put(`/v1/users/${dave.id}`).set(t.admin).send({ role: 'user' }).expect(200);
      const read = await newPet({ categoryId: await newCategory() });
      await deliveryOfEvent(witness, read.event);
      expect((await deliveriesOf(daves)).map((d) => d.eventId)).toEqual([read.event]);
    });

    it('should let a user subscribe to adoption events and receive them', async () => {
      const adoptions = await subscribe(alice.headers, { events: ['adoption.requested'] });
      const adopter = await createUser(t, { role: 'customer' });
      const pet = await newPet({ categoryId: await newCategory() });

      const requested = await t.http
        .post('/v1/adoptions')
        .set(adopter.headers)
        .send({ petId: pet.id })
        .expect(201);

      await waitFor(
        () => Promise.resolve(receiver.acknowledged(adoptions.name).length === 1),
        10_000,
      );
      const [got] = receiver.to(adoptions.name);
      expect(verified(adoptions.secret, got)).toEqual({
        type: 'adoption.requested',
        timestamp: expect.any(String),
        data: requested.body,
      });
    });
  });

  describe('delivery to a user’s subscription', () => {
    it('should sign, retry, redeliver by hand and sign with both secrets after a rotation, as for an admin', async () => {
      const s = await subscribe(alice.headers, { events: ['pet.created'] });
      receiver.reply(s.name, 500);
      const first = await newPet({ categoryId: await newCategory() });

      // The first attempt fails, the retry succeeds.
      await waitFor(() => Promise.resolve(receiver.acknowledged(s.name).length === 1), 10_000);
      const sent = receiver.to(s.name);
      expect(sent.map((r) => r.status)).toEqual([500, 204]);
      for (const r of sent) {
        expect(r.headers['webhook-id']).toBe(first.event);
        expect(verified(s.secret, r)).toEqual(
          expect.objectContaining({
            type: 'pet.created',
            data: expect.objectContaining({ id: first.id }),
          }),
        );
      }
      // The 2xx is recorded just after the receiver answered it.
      let delivery: Delivery | undefined;
      await waitFor(async () => {
        [delivery] = await deliveriesOf(s, alice.headers);
        return delivery?.status === 'succeeded';
      }, 10_000);
      expect(delivery).toEqual(
        expect.objectContaining({ eventId: first.event, status: 'succeeded' }),
      );

      await t.http
        .post(`/v1/webhooks/${s.id}/deliveries/${delivery!.id}/retry`)
        .set(alice.headers)
        .expect(202);
      await waitFor(() => Promise.resolve(receiver.acknowledged(s.name).length === 2), 10_000);
      expect(receiver.acknowledged(s.name)[1].headers['webhook-id']).toBe(first.event);

      const rotated = await t.http
        .post(`/v1/webhooks/${s.id}/rotate-secret`)
        .set(alice.headers)
        .expect(200);
      const second = await newPet({ categoryId: await newCategory() });
      await waitFor(() => Promise.resolve(receiver.acknowledged(s.name).length === 3), 10_000);
      const last = receiver.acknowledged(s.name)[2];
      expect(last.headers['webhook-id']).toBe(second.event);
      expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verified(rotated.body.secret as string, last)).toEqual(
        expect.objectContaining({ type: 'pet.created' }),
      );
      expect(verified(s.secret, last)).toEqual(expect.objectContaining({ type: 'pet.created' }));
    });
  });
});
