import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { GateFanOutByInterest1796600000000 } from '../../../src/database/migrations/1796600000000-GateFanOutByInterest.js';
import { OutboxRepository } from '../../../src/events/outbox.repository.js';
import { petSubject, type PetEventType } from '../../../src/pets/pet-events.js';
import { User } from '../../../src/users/user.entity.js';
import { WEBHOOK_FAN_OUT } from '../../../src/webhooks/delivery/webhook-fan-out.js';
import { WebhookSubscription } from '../../../src/webhooks/webhook-subscription.entity.js';
import { WebhooksRepository } from '../../../src/webhooks/webhooks.repository.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';
import { waitForLockWaiters } from '../../support/wait.js';

/** Another consumer of pet events, not gated by interest (as mail is not). */
const UNGATED = 'search-index';

/*
 * The fan-out's outbox rows are written only for the event types some enabled subscription
 * wants (docs/events.md, "Interest"): every change of the subscriptions, whatever statement
 * makes it, keeps `outbox_interests` exact in its own transaction.
 */
describe('Webhook interests (the fan-out gated by outbox_interests)', () => {
  let harness: RepositoryHarness;
  let outbox: OutboxRepository;
  let webhooks: WebhooksRepository;
  let petId = 0;

  /** Publishes an event of each type as DomainEvents does: the fan-out gated, UNGATED not. */
  const publish = (...types: PetEventType[]) =>
    harness.transaction(() =>
      outbox.add(
        types.flatMap((type) => {
          petId += 1;
          const event = { type, subject: petSubject(petId), id: randomUUID() };
          return [
            { consumer: WEBHOOK_FAN_OUT, event, gated: true },
            { consumer: UNGATED, event },
          ];
        }),
      ),
    );
  /** The event types the fan-out got a row for, in order. */
  const fannedOut = async () =>
    (
      await harness.query<{ type: string }>(
        `SELECT event_type AS type FROM outbox_messages WHERE consumer = $1 ORDER BY id`,
        [WEBHOOK_FAN_OUT],
      )
    ).map((row) => row.type);
  /** Publishes one event of each type and answers those the fan-out got, then forgets them. */
  const fanOutOf = async (...types: PetEventType[]) => {
    await publish(...types);
    const written = await fannedOut();
    await harness.query('DELETE FROM outbox_messages');
    return written;
  };
  const subscribe = (events: PetEventType[]) =>
    harness.transaction(() =>
      webhooks.insertSubscription({
        url: 'https://hooks.example.com/pets',
        events,
        description: null,
        secret: 'whsec_test',
        ownerId: null,
        filterCategoryIds: null,
        filterStatuses: null,
        filterTags: null,
      }),
    );

  beforeAll(async () => {
    harness = await createRepositoryHarness([OutboxRepository, WebhooksRepository], {
      // The subscription's owner is a user.
      entities: [WebhookSubscription, User],
    });
    outbox = harness.get(OutboxRepository);
    webhooks = harness.get(WebhooksRepository);
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(async () => {
    await harness.query('DELETE FROM outbox_messages');
    await harness.query('DELETE FROM webhook_subscriptions');
  });

  it('should write no fan-out row without a subscription, and the other consumers’ rows still', async () => {
    const written = await publish('pet.created', 'pet.updated', 'pet.deleted');

    expect(await fannedOut()).toEqual([]);
    const rows = await harness.query<{ id: number; consumer: string }>(
      'SELECT id, consumer FROM outbox_messages ORDER BY id',
    );
    expect(rows.map((row) => row.consumer)).toEqual([UNGATED, UNGATED, UNGATED]);
    expect(written).toEqual(rows.map((row) => ({ consumer: row.consumer, due: true })));
  });

  it('should write the fan-out’s row for exactly the types an enabled subscription wants', async () => {
    await subscribe(['pet.created', 'pet.deleted']);

    expect(await fanOutOf('pet.created', 'pet.updated', 'pet.deleted', 'pet.created')).toEqual([
      'pet.created',
      'pet.deleted',
      'pet.created',
    ]);
  });

  it('should stop the rows when the subscription is disabled, and write them again once re-enabled', async () => {
    const { id } = await subscribe(['pet.created']);

    await harness.transaction(() => webhooks.updateSubscription(id, { enabled: false }));
    expect(await fanOutOf('pet.created')).toEqual([]);

    await harness.transaction(() => webhooks.updateSubscription(id, { enabled: true }));
    expect(await fanOutOf('pet.created')).toEqual(['pet.created']);
  });

  it('should stop the rows when the service disables a failing subscription', async () => {
    const { id } = await subscribe(['pet.created']);

    // As the delivery worker's record of a last failure writes it.
    await harness.query(
      `UPDATE webhook_subscriptions SET enabled = false, disabled_reason = 'failing'
        WHERE id = $1 AND enabled`,
      [id],
    );

    expect(await fanOutOf('pet.created')).toEqual([]);
  });

  it('should follow the events a subscription narrows to or widens to', async () => {
    const { id } = await subscribe(['pet.created', 'pet.updated']);

    await harness.transaction(() => webhooks.updateSubscription(id, { events: ['pet.updated'] }));
    expect(await fanOutOf('pet.created', 'pet.updated')).toEqual(['pet.updated']);

    await harness.transaction(() =>
      webhooks.updateSubscription(id, { events: ['pet.deleted', 'pet.created'] }),
    );
    expect(await fanOutOf('pet.created', 'pet.updated', 'pet.deleted')).toEqual([
      'pet.created',
      'pet.deleted',
    ]);
  });

  it('should keep the rows while another subscription wants the type, and stop them with the last', async () => {
    const first = await subscribe(['pet.created']);
    const second = await subscribe(['pet.created', 'pet.updated']);

    await harness.transaction(() => webhooks.deleteSubscription(first.id));
    expect(await fanOutOf('pet.created', 'pet.updated')).toEqual(['pet.created', 'pet.updated']);

    await harness.transaction(() => webhooks.deleteSubscription(second.id));
    expect(await fanOutOf('pet.created', 'pet.updated')).toEqual([]);
  });

  it('should count a disabled subscription out once: deleting it leaves an enabled one’s rows', async () => {
    await subscribe(['pet.created']);
    const disabled = await subscribe(['pet.created']);
    await harness.transaction(() => webhooks.updateSubscription(disabled.id, { enabled: false }));

    await harness.transaction(() => webhooks.deleteSubscription(disabled.id));

    expect(await fanOutOf('pet.created')).toEqual(['pet.created']);
  });

  it('should stop the rows when one statement deletes many subscriptions, as an owner’s cascade does', async () => {
    await subscribe(['pet.created']);
    await subscribe(['pet.created', 'pet.deleted']);
    await subscribe(['pet.deleted']);

    await harness.query('DELETE FROM webhook_subscriptions');

    expect(await fanOutOf('pet.created', 'pet.deleted')).toEqual([]);
  });

  it('should stop the rows when the subscriptions are truncated', async () => {
    await subscribe(['pet.created']);

    await harness.query('TRUNCATE webhook_subscriptions CASCADE');

    expect(await fanOutOf('pet.created')).toEqual([]);
  });

  it('should leave the interest as it was when the subscription’s change rolls back', async () => {
    const { id } = await subscribe(['pet.created']);

    await expect(
      harness.transaction(async () => {
        await webhooks.deleteSubscription(id);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');

    expect(await fanOutOf('pet.created')).toEqual(['pet.created']);
  });

  it('should count the subscriptions already there when the migration runs', async () => {
    const migration = new GateFanOutByInterest1796600000000();
    await harness.migrate(migration, 'down');
    try {
      await subscribe(['pet.created', 'pet.deleted']);
      await subscribe(['pet.created']);
      const disabled = await subscribe(['pet.updated']);
      await harness.query('UPDATE webhook_subscriptions SET enabled = false WHERE id = $1', [
        disabled.id,
      ]);
    } finally {
      await harness.migrate(migration, 'up');
    }

    expect(await fanOutOf('pet.created', 'pet.updated', 'pet.deleted')).toEqual([
      'pet.created',
      'pet.deleted',
    ]);
    await harness.query('DELETE FROM webhook_subscriptions WHERE $1 = ANY(events)', [
      'pet.deleted',
    ]);
    expect(await fanOutOf('pet.created', 'pet.deleted')).toEqual(['pet.created']);
  });

  // Sessions of their own: PGlite serves one session at a time.
  const onServer = process.env.DATABASE_URL ? describe : describe.skip;

  onServer('sessions of their own', () => {
    let sessions: pg.Client[];

    beforeEach(async () => {
      sessions = [0, 1].map(
        () => new pg.Client({ connectionString: harness.database.env.DATABASE_URL }),
      );
      await Promise.all(sessions.map((session) => session.connect()));
    });
    afterEach(async () => {
      await Promise.all(sessions.map((session) => session.end()));
    });

    it('should count exactly when one subscription is created while another is deleted', async () => {
      const [creating, deleting] = sessions;
      const old = await subscribe(['pet.created']);

      await creating.query('BEGIN');
      await creating.query(
        `INSERT INTO webhook_subscriptions (url, events, secret)
         VALUES ('https://hooks.example.com/new', '{pet.created}', 'whsec_test')`,
      );
      // Waits for the count the uncommitted creation holds, then counts the old one out.
      const deleted = deleting.query('DELETE FROM webhook_subscriptions WHERE id = $1', [old.id]);
      await waitForLockWaiters(creating, 1, 'DELETE FROM webhook_subscriptions');
      await creating.query('COMMIT');
      await deleted;

      expect(await fanOutOf('pet.created')).toEqual(['pet.created']);
      await harness.query('DELETE FROM webhook_subscriptions');
      expect(await fanOutOf('pet.created')).toEqual([]);
    });
  });
});
