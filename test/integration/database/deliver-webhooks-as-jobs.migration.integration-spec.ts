import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeliverWebhooksAsJobs1796590000000 } from '../../../src/database/migrations/1796590000000-DeliverWebhooksAsJobs.js';
import { WebhookDeliveriesRepository } from '../../../src/webhooks/delivery/webhook-deliveries.repository.js';
import { WEBHOOK_DELIVERY_QUEUE } from '../../../src/webhooks/delivery/webhook-delivery-jobs.js';
import { WEBHOOK_OWNER_ROLES } from '../../../src/webhooks/webhook-event-types.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

/*
 * The migration that makes webhook deliveries jobs of the engine gives every pending delivery
 * its job, in event order, as the fan-out queues them (docs/events.md, "Webhooks"): none is
 * left behind by the upgrade. Run backwards to the table as it was, then forwards again.
 */
describe(DeliverWebhooksAsJobs1796590000000.name, () => {
  let harness: RepositoryHarness;
  const migration = new DeliverWebhooksAsJobs1796590000000();

  const run = (direction: 'up' | 'down') => harness.migrate(migration, direction);

  beforeAll(async () => {
    harness = await createRepositoryHarness([WebhookDeliveriesRepository]);
  });
  afterAll(() => harness?.close());

  it('should queue a job for each pending delivery, in event order, and none for an ended one', async () => {
    const [{ id: subscriptionId }] = await harness.query<{ id: number }>(
      `INSERT INTO webhook_subscriptions (url, events, secret, created_at)
       VALUES ('http://127.0.0.1:9/hook', '{pet.updated}', 'whsec_c2VjcmV0', now() - interval '1 minute')
       RETURNING id`,
    );
    const event = (sequence: number, petId: number) => ({
      event: {
        sequence,
        id: `evt_migrated_${sequence}`,
        type: 'pet.updated' as const,
        petId,
        occurredAt: new Date().toISOString(),
      },
      body: '{}',
      readers: WEBHOOK_OWNER_ROLES,
      pet: null,
    });
    const [ended, rex1, fido1, rex2] = await harness.transaction(() =>
      harness
        .get(WebhookDeliveriesRepository)
        .insertForEvents([event(1, 7), event(2, 8), event(3, 9), event(4, 8)]),
    );
    await harness.query(
      `UPDATE webhook_deliveries SET status = 'succeeded', completed_at = now() WHERE id = $1`,
      [ended.id],
    );
    await run('down');

    await run('up');

    const jobs = await harness.query<{ consumer: string; subject: string; event: object }>(
      `SELECT consumer, subject, event FROM outbox_messages ORDER BY id`,
    );
    const jobOf = (deliveryId: number, petId: number) => {
      const subject = `webhook:${subscriptionId}:pet:${petId}`;
      return {
        consumer: WEBHOOK_DELIVERY_QUEUE,
        subject,
        event: { type: 'webhook.deliver', subject, deliveryId },
      };
    };
    expect(jobs).toEqual([jobOf(rex1.id, 8), jobOf(fido1.id, 9), jobOf(rex2.id, 8)]);
    const leaseColumns = await harness.query(
      `SELECT column_name FROM information_schema.columns
        WHERE table_name = 'webhook_deliveries' AND column_name IN ('lease_token', 'leased_until')`,
    );
    expect(leaseColumns).toEqual([]);
  });
});
