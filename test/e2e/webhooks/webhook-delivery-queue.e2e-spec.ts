import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { TransactionHost } from '@nestjs-cls/transactional';
import { DataSource } from 'typeorm';
import type { TxHost } from '../../../src/database/transactions.js';
import type { PetEventType } from '../../../src/pets/pet-events.js';
import {
  WebhookDeliveriesRepository,
  type OutgoingEvent,
} from '../../../src/webhooks/delivery/webhook-deliveries.repository.js';
import { WebhookDeliveriesService } from '../../../src/webhooks/delivery/webhook-deliveries.service.js';
import { WebhookDispatcher } from '../../../src/webhooks/delivery/webhook-dispatcher.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const LEASE_MS = 60_000;
const DAY_MS = 24 * 3_600_000;
const disable = { afterMs: DAY_MS, reason: 'Every delivery failed for 24 hours (last: HTTP 500)' };
const ok = { statusCode: 204, durationMs: 12, error: null, responseBody: null };
const serverError = { statusCode: 500, durationMs: 7, error: 'HTTP 500', responseBody: 'oops' };

let sequence = 0;
let petIds = 1_000;

function event(type: PetEventType, petId: number, occurredAt = new Date()): OutgoingEvent {
  sequence += 1;
  return {
    sequence,
    id: `evt_${randomUUID()}`,
    type,
    petId,
    occurredAt,
    body: JSON.stringify({ type, timestamp: occurredAt.toISOString(), data: { id: petId } }),
  };
}

// The claims, records and fan-out statements of the delivery worker, on the real schema.
describe('Webhook delivery queue (e2e, its SQL)', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let sut: WebhookDeliveriesRepository;

  const subscribe = async (
    events: PetEventType[] = ['pet.created', 'pet.updated'],
    fields: { enabled?: boolean; createdAt?: Date } = {},
  ): Promise<number> => {
    const [{ id }] = await dataSource.query<{ id: number }[]>(
      `INSERT INTO webhook_subscriptions (url, events, secret, enabled, created_at)
       VALUES ('http://127.0.0.1:9/hook', $1, 'whsec_c2VjcmV0', $2, $3) RETURNING id`,
      [events, fields.enabled ?? true, fields.createdAt ?? new Date(Date.now() - 60_000)],
    );
    return id;
  };
  const fanOut = (events: OutgoingEvent[]) =>
    t.app.get<TxHost>(TransactionHost).withTransaction(() => sut.insertForEvents(events));
  const deliveriesOf = (subscriptionId: number) =>
    dataSource.query<
      { id: number; eventId: string; status: string; attempts: number; leaseToken: string | null }[]
    >(
      `SELECT id, event_id AS "eventId", status, attempts, lease_token AS "leaseToken"
         FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY event_sequence`,
      [subscriptionId],
    );
  const subscriptionState = async (id: number) =>
    (
      await dataSource.query<
        { enabled: boolean; disabledReason: string | null; failingSince: Date | null }[]
      >(
        `SELECT enabled, disabled_reason AS "disabledReason", failing_since AS "failingSince"
           FROM webhook_subscriptions WHERE id = $1`,
        [id],
      )
    )[0];
  const claimAll = (token = randomUUID(), leaseMs = LEASE_MS) => sut.claim(100, token, leaseMs);

  beforeAll(async () => {
    t = await createTestApp({}, { signIn: false });
    // The app's own worker stops, as at shutdown: this spec claims by hand.
    await t.app.get(WebhookDispatcher).beforeApplicationShutdown();
    dataSource = t.dataSource;
    sut = t.app.get(WebhookDeliveriesRepository);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await dataSource.query(`DELETE FROM webhook_subscriptions`);
  });

  describe('fan-out', () => {
    it('should add one delivery per enabled subscription that asked for the type and existed then', async () => {
      const wanted = await subscribe(['pet.created']);
      const other = await subscribe(['pet.deleted']);
      const disabled = await subscribe(['pet.created'], { enabled: false });
      const later = await subscribe(['pet.created'], { createdAt: new Date(Date.now() + 60_000) });
      const created = event('pet.created', (petIds += 1));

      expect(await fanOut([created])).toBe(1);

      expect(await deliveriesOf(wanted)).toEqual([
        {
          id: expect.any(Number),
          eventId: created.id,
          status: 'pending',
          attempts: 0,
          leaseToken: null,
        },
      ]);
      for (const id of [other, disabled, later]) expect(await deliveriesOf(id)).toEqual([]);
      const [stored] = await dataSource.query<Record<string, unknown>[]>(
        `SELECT event_sequence AS "eventSequence", event_type AS "eventType", pet_id AS "petId", body
           FROM webhook_deliveries WHERE subscription_id = $1`,
        [wanted],
      );
      expect(stored).toEqual({
        eventSequence: created.sequence,
        eventType: 'pet.created',
        petId: created.petId,
        body: created.body,
      });
    });

    it('should add nothing for an event fanned out a second time', async () => {
      const id = await subscribe();
      const created = event('pet.created', (petIds += 1));
      await fanOut([created]);

      expect(await fanOut([created])).toBe(0);
      expect(await deliveriesOf(id)).toHaveLength(1);
    });

    it('should add nothing when the transaction rolls back', async () => {
      const id = await subscribe();

      await expect(
        t.app.get<TxHost>(TransactionHost).withTransaction(async () => {
          await sut.insertForEvents([event('pet.created', (petIds += 1))]);
          throw new Error('publishing failed');
        }),
      ).rejects.toThrow('publishing failed');
      expect(await deliveriesOf(id)).toEqual([]);
    });
  });

  describe('claim', () => {
    it('should take due deliveries with their subscription’s URL and secrets, under the token', async () => {
      const id = await subscribe();
      const created = event('pet.created', (petIds += 1));
      await fanOut([created]);
      const token = randomUUID();

      const claimed = await claimAll(token);

      expect(claimed).toEqual([
        {
          id: expect.any(Number),
          subscriptionId: id,
          eventId: created.id,
          body: created.body,
          attempts: 0,
          firstAttemptAt: null,
          leaseToken: token,
          url: 'http://127.0.0.1:9/hook',
          secret: 'whsec_c2VjcmV0',
          previousSecret: null,
          previousSecretExpiresAt: null,
        },
      ]);
      expect((await deliveriesOf(id))[0].leaseToken).toBe(token);
    });

    it('should not take a delivery whose next attempt is not due yet', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1))]);
      await dataSource.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 minute'
          WHERE subscription_id = $1`,
        [id],
      );

      expect(await claimAll()).toEqual([]);
    });

    it('should leave a disabled subscription’s deliveries waiting, and take them once re-enabled', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1))]);
      await dataSource.query(`UPDATE webhook_subscriptions SET enabled = false WHERE id = $1`, [
        id,
      ]);

      expect(await claimAll()).toEqual([]);
      await dataSource.query(`UPDATE webhook_subscriptions SET enabled = true WHERE id = $1`, [id]);
      expect(await claimAll()).toHaveLength(1);
    });

    it('should take only the oldest pending delivery of each (subscription, pet)', async () => {
      const first = await subscribe();
      const second = await subscribe();
      const rex = (petIds += 1);
      const fido = (petIds += 1);
      const [rex1, fido1, rex2, rex3] = [
        event('pet.created', rex),
        event('pet.created', fido),
        event('pet.updated', rex),
        event('pet.updated', rex),
      ];
      await fanOut([rex1, fido1, rex2, rex3]);

      const claimed = await claimAll();

      expect(claimed.map((d) => [d.subscriptionId, d.eventId]).sort()).toEqual(
        [
          [first, rex1.id],
          [first, fido1.id],
          [second, rex1.id],
          [second, fido1.id],
        ].sort(),
      );
    });

    it('should keep a pet’s later event waiting while its earlier one is retried, even when due first', async () => {
      const id = await subscribe();
      const rex = (petIds += 1);
      const [rex1, rex2] = [event('pet.created', rex), event('pet.updated', rex)];
      await fanOut([rex1, rex2]);
      const [claimed] = await claimAll();
      const retryAt = new Date(Date.now() + 60_000);
      await sut.recordAttempt(
        claimed,
        attempt(serverError),
        {
          status: 'pending',
          nextAttemptAt: retryAt,
        },
        disable,
      );

      expect(await claimAll()).toEqual([]);

      await dataSource.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE subscription_id = $1`,
        [id],
      );
      const [again] = await claimAll();
      expect(again.eventId).toBe(rex1.id);
      await sut.recordAttempt(again, attempt(ok), { status: 'succeeded' }, disable);
      expect((await claimAll()).map((d) => d.eventId)).toEqual([rex2.id]);
    });

    it('should hold a pet’s later deliveries, new ones included, until its earlier one’s retry, and free them when it ends sooner', async () => {
      const id = await subscribe();
      const rex = (petIds += 1);
      const [rex1, rex2, rex3] = [
        event('pet.created', rex),
        event('pet.updated', rex),
        event('pet.updated', rex),
      ];
      await fanOut([rex1, rex2]);
      const [claimed] = await claimAll();
      const retryAt = new Date(Date.now() + 60_000);
      await sut.recordAttempt(
        claimed,
        attempt(serverError),
        { status: 'pending', nextAttemptAt: retryAt },
        disable,
      );
      await fanOut([rex3]);
      const dueTimes = async () =>
        (
          await dataSource.query<{ eventId: string; nextAttemptAt: Date }[]>(
            `SELECT event_id AS "eventId", next_attempt_at AS "nextAttemptAt"
               FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY event_sequence`,
            [id],
          )
        ).map((d) => [d.eventId, d.nextAttemptAt.getTime()]);

      expect(await dueTimes()).toEqual([rex1, rex2, rex3].map((e) => [e.id, retryAt.getTime()]));

      // Retried by hand, it succeeds before that time: the next event goes at once.
      expect(await sut.makeDueNow(id, claimed.id)).toBe(true);
      const [again] = await claimAll();
      await sut.recordAttempt(again, attempt(ok), { status: 'succeeded' }, disable);
      expect((await claimAll()).map((d) => d.eventId)).toEqual([rex2.id]);
    });

    it('should let a pet’s next event go once the earlier one has failed for good', async () => {
      await subscribe();
      const rex = (petIds += 1);
      const [rex1, rex2] = [event('pet.created', rex), event('pet.updated', rex)];
      await fanOut([rex1, rex2]);
      const [claimed] = await claimAll();

      await sut.recordAttempt(claimed, attempt(serverError), { status: 'failed' }, disable);

      expect((await claimAll()).map((d) => d.eventId)).toEqual([rex2.id]);
    });

    it('should not hand a leased delivery to another worker until its lease expires', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1))]);
      const [first] = await claimAll(randomUUID(), 200);

      expect(await claimAll()).toEqual([]);

      await new Promise((resolve) => setTimeout(resolve, 250));
      const takeover = randomUUID();
      const [second] = await claimAll(takeover);
      expect(second.id).toBe(first.id);
      expect((await deliveriesOf(id))[0].leaseToken).toBe(takeover);
    });
  });

  describe('retention', () => {
    it('should delete the deliveries that ended more than 30 days ago, with their attempts, and keep the rest', async () => {
      const id = await subscribe();
      await fanOut([1, 2, 3].map(() => event('pet.created', (petIds += 1))));
      const [old, recent, pending] = await claimAll();
      for (const delivery of [old, recent]) {
        await sut.recordAttempt(
          delivery,
          { ...ok, attemptedAt: new Date() },
          { status: 'succeeded' },
          disable,
        );
      }
      await dataSource.query(
        `UPDATE webhook_deliveries SET completed_at = now() - interval '31 days' WHERE id = $1`,
        [old.id],
      );
      await dataSource.query(
        `UPDATE webhook_deliveries SET completed_at = now() - interval '29 days' WHERE id = $1`,
        [recent.id],
      );

      expect(await t.app.get(WebhookDeliveriesService).removeExpired()).toBe(1);

      expect((await deliveriesOf(id)).map((d) => d.id)).toEqual([recent.id, pending.id]);
      expect(await sut.findAttempts(old.id, 50)).toEqual([]);
    });
  });

  describe('record', () => {
    it('should record a success: the attempt, the count, and the delivery completed', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1))]);
      const [claimed] = await claimAll();
      const attemptedAt = new Date(Date.now() - 1_000);

      const recorded = await sut.recordAttempt(
        claimed,
        { ...ok, attemptedAt },
        { status: 'succeeded' },
        disable,
      );

      expect(recorded).toEqual({ disabledSubscription: false });
      const [row] = await dataSource.query<Record<string, unknown>[]>(
        `SELECT status, attempts, lease_token AS "leaseToken", leased_until AS "leasedUntil",
                last_attempt_at AS "lastAttemptAt", completed_at AS "completedAt"
           FROM webhook_deliveries WHERE subscription_id = $1`,
        [id],
      );
      expect(row).toEqual({
        status: 'succeeded',
        attempts: 1,
        leaseToken: null,
        leasedUntil: null,
        lastAttemptAt: attemptedAt,
        completedAt: new Date(attemptedAt.getTime() + ok.durationMs),
      });
      expect(await sut.findAttempts(claimed.id, 50)).toEqual([{ ...ok, attemptedAt }]);
    });

    it('should record a failure to retry later, and start the subscription’s failure streak', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1))]);
      const [claimed] = await claimAll();
      const nextAttemptAt = new Date(Date.now() + 30_000);
      const failed = attempt(serverError);

      await sut.recordAttempt(claimed, failed, { status: 'pending', nextAttemptAt }, disable);

      const [row] = await dataSource.query<Record<string, unknown>[]>(
        `SELECT status, attempts, next_attempt_at AS "nextAttemptAt", completed_at AS "completedAt"
           FROM webhook_deliveries WHERE subscription_id = $1`,
        [id],
      );
      expect(row).toEqual({ status: 'pending', attempts: 1, nextAttemptAt, completedAt: null });
      expect(await subscriptionState(id)).toEqual({
        enabled: true,
        disabledReason: null,
        failingSince: failed.attemptedAt,
      });
      expect(await sut.findAttempts(claimed.id, 50)).toEqual([failed]);
    });

    it('should keep the first attempt’s time across retries, and forget it on a retry by hand', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1))]);
      const retry = { status: 'pending' as const, nextAttemptAt: new Date() };
      const [claimed] = await claimAll();
      const first = attempt(serverError);
      await sut.recordAttempt(claimed, first, retry, disable);
      const [second] = await claimAll();
      await sut.recordAttempt(
        second,
        { ...first, attemptedAt: new Date(first.attemptedAt.getTime() + 1_000) },
        retry,
        disable,
      );

      const [third] = await claimAll();
      expect(third.firstAttemptAt).toEqual(first.attemptedAt);

      await sut.recordAttempt(third, attempt(serverError), { status: 'failed' }, disable);
      expect(await sut.makeDueNow(id, third.id)).toBe(true);
      expect((await claimAll())[0].firstAttemptAt).toBeNull();
    });

    it('should write nothing for a worker whose lease was taken over', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1))]);
      const [lost] = await claimAll(randomUUID(), 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [taken] = await claimAll();

      const recorded = await sut.recordAttempt(lost, attempt(ok), { status: 'succeeded' }, disable);

      expect(recorded).toBeUndefined();
      expect(await deliveriesOf(id)).toEqual([
        expect.objectContaining({ status: 'pending', attempts: 0, leaseToken: taken.leaseToken }),
      ]);
      expect(await sut.findAttempts(lost.id, 50)).toEqual([]);
      expect(await subscriptionState(id)).toEqual(expect.objectContaining({ failingSince: null }));
    });

    it('should disable a subscription whose every attempt has failed for 24 hours, saying why', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1)), event('pet.created', (petIds += 1))]);
      const [first, second] = await claimAll();
      await sut.recordAttempt(first, attempt(serverError), { status: 'failed' }, disable);
      await dataSource.query(
        `UPDATE webhook_subscriptions SET failing_since = failing_since - interval '24 hours'
          WHERE id = $1`,
        [id],
      );

      const recorded = await sut.recordAttempt(
        second,
        attempt(serverError),
        { status: 'failed' },
        disable,
      );

      expect(recorded).toEqual({ disabledSubscription: true });
      expect(await subscriptionState(id)).toEqual({
        enabled: false,
        disabledReason: disable.reason,
        failingSince: expect.any(Date),
      });
    });

    it('should end the failure streak with a success', async () => {
      const id = await subscribe();
      await fanOut([event('pet.created', (petIds += 1)), event('pet.created', (petIds += 1))]);
      const [first, second] = await claimAll();
      await sut.recordAttempt(first, attempt(serverError), { status: 'failed' }, disable);
      await dataSource.query(
        `UPDATE webhook_subscriptions SET failing_since = failing_since - interval '23 hours'
          WHERE id = $1`,
        [id],
      );

      await sut.recordAttempt(second, attempt(ok), { status: 'succeeded' }, disable);

      expect(await subscriptionState(id)).toEqual({
        enabled: true,
        disabledReason: null,
        failingSince: null,
      });
    });
  });
});

// Concurrent claims need connections of their own: PGlite serves one session.
const withServer = process.env.DATABASE_URL ? describe : describe.skip;

withServer('Webhook delivery queue under concurrent workers (e2e, PostgreSQL)', () => {
  let t: TestApp;
  let sut: WebhookDeliveriesRepository;

  beforeAll(async () => {
    t = await createTestApp({}, { signIn: false });
    await t.app.get(WebhookDispatcher).beforeApplicationShutdown();
    sut = t.app.get(WebhookDeliveriesRepository);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await t.dataSource.query(`DELETE FROM webhook_subscriptions`);
  });

  it('should skip a delivery another transaction holds instead of waiting for it', async () => {
    const [{ id }] = await t.dataSource.query<{ id: number }[]>(
      `INSERT INTO webhook_subscriptions (url, events, secret, created_at)
       VALUES ('http://127.0.0.1:9/hook', '{pet.created}', 'whsec_c2VjcmV0', now() - interval '1 minute')
       RETURNING id`,
    );
    const events = [event('pet.created', (petIds += 1)), event('pet.created', (petIds += 1))];
    await t.app.get<TxHost>(TransactionHost).withTransaction(() => sut.insertForEvents(events));
    const holder = t.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      const [held] = (await holder.query(
        `SELECT id FROM webhook_deliveries WHERE subscription_id = $1 AND event_id = $2 FOR UPDATE`,
        [id, events[0].id],
      )) as { id: number }[];

      const claimed = await sut.claim(100, randomUUID(), LEASE_MS);

      expect(claimed.map((d) => d.eventId)).toEqual([events[1].id]);
      expect(held.id).not.toBe(claimed[0].id);
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
  });

  it('should hand each due delivery to exactly one of several workers claiming at once', async () => {
    await t.dataSource.query(
      `INSERT INTO webhook_subscriptions (url, events, secret, created_at)
       VALUES ('http://127.0.0.1:9/hook', '{pet.created}', 'whsec_c2VjcmV0', now() - interval '1 minute')`,
    );
    const events = Array.from({ length: 60 }, () => event('pet.created', (petIds += 1)));
    await t.app.get<TxHost>(TransactionHost).withTransaction(() => sut.insertForEvents(events));

    const claims = await Promise.all(
      Array.from({ length: 6 }, () => sut.claim(15, randomUUID(), LEASE_MS)),
    );

    const claimedIds = claims.flat().map((d) => d.eventId);
    expect(claimedIds.sort()).toEqual(events.map((e) => e.id).sort());
  });
});

function attempt(result: typeof ok | typeof serverError) {
  return { ...result, attemptedAt: new Date(Math.floor(Date.now() / 1000) * 1000) };
}
