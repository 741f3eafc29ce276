import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooks1795550000000 implements MigrationInterface {
  name = 'CreateWebhooks1795550000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_subscriptions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "url" character varying(2048) NOT NULL, "events" text array NOT NULL, "description" character varying(500), "enabled" boolean NOT NULL DEFAULT true, "disabled_reason" character varying(500), "secret" character varying(100) NOT NULL, "previous_secret" character varying(100), "previous_secret_expires_at" TIMESTAMP(3) WITH TIME ZONE, "failing_since" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_webhook_subscriptions" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "subscription_id" bigint NOT NULL, "event_sequence" bigint NOT NULL, "event_id" character varying(64) NOT NULL, "event_type" character varying(32) NOT NULL, "pet_id" bigint NOT NULL, "body" text NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT 0, "next_attempt_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "lease_token" uuid, "leased_until" TIMESTAMP(3) WITH TIME ZONE, "first_attempt_at" TIMESTAMP(3) WITH TIME ZONE, "last_attempt_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "CHK_webhook_deliveries_status" CHECK ("status" IN ('pending', 'succeeded', 'failed')), CONSTRAINT "UQ_webhook_deliveries_event" UNIQUE ("subscription_id", "event_id"), CONSTRAINT "PK_webhook_deliveries" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_delivery_attempts" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "delivery_id" bigint NOT NULL, "attempted_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "status_code" smallint, "duration_ms" integer NOT NULL, "error" character varying(1000), "response_body" character varying(1024), CONSTRAINT "PK_webhook_delivery_attempts" PRIMARY KEY ("id"))`,
    );
    // The workers' claim: each subscription's due pending deliveries, and per (subscription,
    // pet) the oldest.
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_due" ON "webhook_deliveries" ("subscription_id", "next_attempt_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_pending_per_pet" ON "webhook_deliveries" ("subscription_id", "pet_id", "event_sequence") WHERE "status" = 'pending'`,
    );
    // The delivery log, newest first.
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_subscription" ON "webhook_deliveries" ("subscription_id", "id")`,
    );
    // The sweep of deliveries that ended more than 30 days ago.
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_completed" ON "webhook_deliveries" ("completed_at") WHERE "status" <> 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_delivery_attempts_delivery" ON "webhook_delivery_attempts" ("delivery_id", "id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_webhook_deliveries_subscription" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "FK_webhook_delivery_attempts_delivery" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_delivery_attempts"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP TABLE "webhook_subscriptions"`);
  }
}
