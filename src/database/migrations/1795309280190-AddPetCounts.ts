import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Exact pet totals in O(1): one counter row per (category, status), kept by triggers in
 * the same transaction as every insert, delete and move, so `total` never needs COUNT(*).
 */
export class AddPetCounts1795309280190 implements MigrationInterface {
  name = 'AddPetCounts1795309280190';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "pet_counts" (
        "category_id" bigint NOT NULL REFERENCES "categories"("id") ON DELETE CASCADE,
        "status" "public"."pet_status" NOT NULL,
        "count" bigint NOT NULL CHECK ("count" >= 0),
        CONSTRAINT "PK_pet_counts" PRIMARY KEY ("category_id", "status")
      )`);
    // Two moves in opposite directions must take the two counter rows in one order,
    // or they would deadlock: the lower (category, status) key is always touched first.
    await queryRunner.query(`
      CREATE FUNCTION "pet_counts_add"(category bigint, pet_status "public"."pet_status", delta int)
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
    await queryRunner.query(`
      CREATE FUNCTION "pet_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
        ELSIF (OLD."category_id", OLD."status") < (NEW."category_id", NEW."status") THEN
          PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
          PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
        ELSE
          PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
          PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "pets_count_insert_delete" AFTER INSERT OR DELETE ON "pets"
      FOR EACH ROW EXECUTE FUNCTION "pet_counts_apply"()`);
    await queryRunner.query(`
      CREATE TRIGGER "pets_count_move" AFTER UPDATE OF "category_id", "status" ON "pets"
      FOR EACH ROW WHEN (OLD."category_id" IS DISTINCT FROM NEW."category_id"
                         OR OLD."status" IS DISTINCT FROM NEW."status")
      EXECUTE FUNCTION "pet_counts_apply"()`);
    await queryRunner.query(`
      INSERT INTO "pet_counts" ("category_id", "status", "count")
      SELECT "category_id", "status", count(*) FROM "pets" GROUP BY "category_id", "status"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "pets_count_move" ON "pets"`);
    await queryRunner.query(`DROP TRIGGER "pets_count_insert_delete" ON "pets"`);
    await queryRunner.query(`DROP FUNCTION "pet_counts_apply"()`);
    await queryRunner.query(`DROP FUNCTION "pet_counts_add"(bigint, "public"."pet_status", int)`);
    await queryRunner.query(`DROP TABLE "pet_counts"`);
  }
}
