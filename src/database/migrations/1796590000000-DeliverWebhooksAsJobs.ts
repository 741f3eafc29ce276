import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook deliveries are sent by jobs of the one job engine (docs/events.md, "Webhooks"):
 * their own lease goes, and each pending delivery gets its job, in event order per
 * subscription and pet, so that none is left behind by the upgrade.
 */
export class DeliverWebhooksAsJobs1796590000000 implements MigrationInterface {
  name = 'DeliverWebhooksAsJobs1796590000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `INSERT INTO "outbox_messages" ("consumer", "subject", "event_type", "event")
       SELECT 'webhooks.deliver', j.subject, 'webhook.deliver',
              jsonb_build_object('type', 'webhook.deliver', 'subject', j.subject, 'deliveryId', j.id)
         FROM (SELECT d.id, 'webhook:' || d.subscription_id || ':pet:' || d.pet_id AS subject,
                      d.event_sequence
                 FROM "webhook_deliveries" d WHERE d.status = 'pending') j
        ORDER BY j.event_sequence, j.id`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "leased_until"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "lease_token"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "lease_token" uuid`);
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD "leased_until" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(`DELETE FROM "outbox_messages" WHERE "consumer" = 'webhooks.deliver'`);
  }
}
