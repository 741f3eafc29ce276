import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks for integrators (docs/events.md, "Webhooks"): a subscription belongs to the
 * staff account that made it, and goes with it. The subscriptions made before, when only
 * admins had any, keep no owner: they are the store's own, which admins see and manage.
 * Optional filters narrow the pet events a subscription gets (null: no such filter).
 */
export class AddWebhookOwnersAndFilters1796665000000 implements MigrationInterface {
  name = 'AddWebhookOwnersAndFilters1796665000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_subscriptions" ADD "owner_id" bigint, ADD "filter_category_ids" bigint array, ADD "filter_statuses" text array, ADD "filter_tags" text array`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "FK_webhook_subscriptions_owner" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // An owner's list and cap, newest first.
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_subscriptions_owner" ON "webhook_subscriptions" ("owner_id", "id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_webhook_subscriptions_owner"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_subscriptions" DROP CONSTRAINT "FK_webhook_subscriptions_owner"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_subscriptions" DROP COLUMN "filter_tags", DROP COLUMN "filter_statuses", DROP COLUMN "filter_category_ids", DROP COLUMN "owner_id"`,
    );
  }
}
