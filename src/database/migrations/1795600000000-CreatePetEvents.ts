import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The pets' change log: each pet's history, and the outbox webhooks publish from. Pets
 * written before this migration have no history until their next change.
 */
export class CreatePetEvents1795600000000 implements MigrationInterface {
  name = 'CreatePetEvents1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pet_events" ("sequence" BIGSERIAL NOT NULL, "id" text NOT NULL, "pet_id" bigint NOT NULL, "type" text NOT NULL, "occurred_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "actor_user_id" bigint, "actor_api_key_prefix" text, "changed_fields" text array, "status_from" "public"."pet_status", "status_to" "public"."pet_status", "pet" jsonb NOT NULL, "published_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "CHK_pet_events_type" CHECK ("type" IN ('pet.created', 'pet.updated', 'pet.status_changed', 'pet.deleted', 'pet.image_added')), CONSTRAINT "PK_pet_events" PRIMARY KEY ("sequence"))`,
    );
    // The outbox: what is still to publish, in order; small, as publishing empties it.
    await queryRunner.query(
      `CREATE INDEX "IDX_pet_events_unpublished" ON "pet_events" ("sequence") WHERE "published_at" IS NULL`,
    );
    // A pet's history, newest first (scanned backwards).
    await queryRunner.query(
      `CREATE INDEX "IDX_pet_events_pet" ON "pet_events" ("pet_id", "sequence")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_pet_events_pet"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_pet_events_unpublished"`);
    await queryRunner.query(`DROP TABLE "pet_events"`);
  }
}
