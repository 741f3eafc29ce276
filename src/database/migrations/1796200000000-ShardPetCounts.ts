import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counters of `pet_counts` split into shards (docs/performance.md, "Counters in shards").
 * With one row per (category, status), every create in the same category and status locked
 * that row from its statement until its commit, so concurrent creates ran one at a time,
 * whatever else their transactions did (search's triggers, the outbox row, the commit's
 * flush): half the create's throughput at 32 connections. Each session now adds to the
 * shard of its server process (`pg_backend_pid() % 16`): two sessions wait on each other
 * only when they share one. The readers already sum the rows of a (category, status), and
 * go on doing so.
 *
 * A shard's count may go below zero (a pet counted in one shard and removed in another):
 * only the sum of a (category, status) is a count, and it never is negative.
 */
export class ShardPetCounts1796200000000 implements MigrationInterface {
  name = 'ShardPetCounts1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "pet_counts" DROP CONSTRAINT "pet_counts_count_check",
                               DROP CONSTRAINT "PK_pet_counts",
                               ADD "shard" smallint NOT NULL DEFAULT 0`);
    await queryRunner.query(`
      ALTER TABLE "pet_counts"
        ADD CONSTRAINT "PK_pet_counts" PRIMARY KEY ("category_id", "status", "shard")`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_counts_add"(category bigint, pet_status "public"."pet_status", delta int)
      RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "pet_counts" ("category_id", "status", "shard", "count")
        VALUES (category, pet_status, pg_backend_pid() % 16, delta)
        ON CONFLICT ("category_id", "status", "shard")
        DO UPDATE SET "count" = "pet_counts"."count" + delta;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_counts_add"(category bigint, pet_status "public"."pet_status", delta int)
      RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        -- A decrement always finds its row; an INSERT would trip the CHECK on its -1 first.
        IF delta < 0 THEN
          UPDATE "pet_counts" SET "count" = "count" + delta
           WHERE "category_id" = category AND "status" = pet_status;
        ELSE
          INSERT INTO "pet_counts" ("category_id", "status", "count")
          VALUES (category, pet_status, delta)
          ON CONFLICT ("category_id", "status") DO UPDATE SET "count" = "pet_counts"."count" + delta;
        END IF;
      END $$`);
    // Every (category, status) back into one row: its sum, written to shard 0.
    await queryRunner.query(`
      WITH folded AS (
        DELETE FROM "pet_counts" WHERE "shard" <> 0
        RETURNING "category_id", "status", "count")
      INSERT INTO "pet_counts" ("category_id", "status", "shard", "count")
      SELECT "category_id", "status", 0, sum("count") FROM folded GROUP BY 1, 2
      ON CONFLICT ("category_id", "status", "shard")
      DO UPDATE SET "count" = "pet_counts"."count" + EXCLUDED."count"`);
    await queryRunner.query(`
      ALTER TABLE "pet_counts" DROP CONSTRAINT "PK_pet_counts", DROP "shard"`);
    await queryRunner.query(`
      ALTER TABLE "pet_counts" ADD CONSTRAINT "PK_pet_counts" PRIMARY KEY ("category_id", "status"),
                               ADD CONSTRAINT "pet_counts_count_check" CHECK ("count" >= 0)`);
  }
}
