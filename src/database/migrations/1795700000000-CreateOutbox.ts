import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One outbox for every durable reaction to a domain event (docs/events.md, "The outbox").
 * Pet events not yet fanned out to webhooks move into it, for the consumer `webhook-fan-out`,
 * so that none is lost; `pet_events` stays the pets' history. Media's image rows are removed
 * by its reaction to `pet.deleted`, later in the deleting transaction: their foreign key is
 * checked at commit instead of cascading.
 */
export class CreateOutbox1795700000000 implements MigrationInterface {
  name = 'CreateOutbox1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "outbox_messages" ("id" BIGSERIAL NOT NULL, "consumer" text NOT NULL, "subject" text NOT NULL, "event_type" text NOT NULL, "event" jsonb NOT NULL, "attempts" integer NOT NULL DEFAULT 0, "next_attempt_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "claim_token" uuid, "claimed_until" TIMESTAMP(3) WITH TIME ZONE, "last_error" text, "failed_at" TIMESTAMP(3) WITH TIME ZONE, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_outbox_messages" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_outbox_messages_due" ON "outbox_messages" ("next_attempt_at", "id") WHERE "failed_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_outbox_messages_subject" ON "outbox_messages" ("consumer", "subject", "id")`,
    );
    await queryRunner.query(
      `INSERT INTO "outbox_messages" ("consumer", "subject", "event_type", "event")
       SELECT 'webhook-fan-out', 'pet:' || "pet_id", "type",
              jsonb_build_object('type', "type", 'subject', 'pet:' || "pet_id",
                                 'sequence', "sequence", 'id', "id", 'petId', "pet_id",
                                 'occurredAt', "occurred_at", 'actorUserId', "actor_user_id",
                                 'actorApiKeyPrefix', "actor_api_key_prefix",
                                 'changedFields', "changed_fields", 'statusFrom', "status_from",
                                 'statusTo', "status_to", 'pet', "pet")
         FROM "pet_events" WHERE "published_at" IS NULL ORDER BY "sequence"`,
    );
    await queryRunner.query(`DROP INDEX "public"."IDX_pet_events_unpublished"`);
    await queryRunner.query(`ALTER TABLE "pet_events" DROP COLUMN "published_at"`);
    await queryRunner.query(`ALTER TABLE "pet_images" DROP CONSTRAINT "FK_pet_images_pet"`);
    await queryRunner.query(
      `ALTER TABLE "pet_images" ADD CONSTRAINT "FK_pet_images_pet" FOREIGN KEY ("pet_id") REFERENCES "pets"("id") ON DELETE NO ACTION ON UPDATE NO ACTION DEFERRABLE INITIALLY DEFERRED`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pet_images" DROP CONSTRAINT "FK_pet_images_pet"`);
    await queryRunner.query(
      `ALTER TABLE "pet_images" ADD CONSTRAINT "FK_pet_images_pet" FOREIGN KEY ("pet_id") REFERENCES "pets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pet_events" ADD "published_at" TIMESTAMP(3) WITH TIME ZONE`,
    );
    // What the outbox still held for webhooks is unpublished again; the rest was.
    await queryRunner.query(
      `UPDATE "pet_events" SET "published_at" = now()
        WHERE "id" NOT IN (SELECT "event"->>'id' FROM "outbox_messages"
                            WHERE "consumer" = 'webhook-fan-out')`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_pet_events_unpublished" ON "pet_events" ("sequence") WHERE "published_at" IS NULL`,
    );
    await queryRunner.query(`DROP TABLE "outbox_messages"`);
  }
}
