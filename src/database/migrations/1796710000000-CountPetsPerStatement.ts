import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * New and deleted pets counted per statement (src/database/schema/pet-counts.sql): a row
 * trigger updated the same counter row once per pet, 83 ms of a 500-pet import batch's
 * 720 (docs/performance.md, "Import"). Moves stay per row.
 */
export class CountPetsPerStatement1796710000000 implements MigrationInterface {
  name = 'CountPetsPerStatement1796710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION pet_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  counted record;
BEGIN
  FOR counted IN
    SELECT "category_id", "status", count(*)::int AS pets FROM changed GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    PERFORM "pet_counts_add"(counted."category_id", counted."status",
                             CASE TG_OP WHEN 'INSERT' THEN counted.pets ELSE -counted.pets END);
  END LOOP;
  RETURN NULL;
END $$`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION pet_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (OLD."category_id", OLD."status") < (NEW."category_id", NEW."status") THEN
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
  ELSE
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
  END IF;
  RETURN NULL;
END $$`);
    await queryRunner.query(`DROP TRIGGER pets_count_insert_delete ON pets`);
    await queryRunner.query(`CREATE OR REPLACE TRIGGER pets_count_insert AFTER INSERT ON pets
REFERENCING NEW TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION pet_counts_changed()`);
    await queryRunner.query(`CREATE OR REPLACE TRIGGER pets_count_delete AFTER DELETE ON pets
REFERENCING OLD TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION pet_counts_changed()`);
    await queryRunner.query(`CREATE OR REPLACE TRIGGER pets_count_move AFTER UPDATE OF category_id, status ON pets
FOR EACH ROW WHEN (OLD.category_id IS DISTINCT FROM NEW.category_id
                   OR OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION pet_counts_moved()`);
    await queryRunner.query(`DROP FUNCTION pet_counts_apply()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE FUNCTION pet_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
    await queryRunner.query(`DROP TRIGGER pets_count_insert ON pets`);
    await queryRunner.query(`DROP TRIGGER pets_count_delete ON pets`);
    await queryRunner.query(`CREATE OR REPLACE TRIGGER pets_count_insert_delete AFTER INSERT OR DELETE ON pets
FOR EACH ROW EXECUTE FUNCTION pet_counts_apply()`);
    await queryRunner.query(`CREATE OR REPLACE TRIGGER pets_count_move AFTER UPDATE OF category_id, status ON pets
FOR EACH ROW WHEN (OLD.category_id IS DISTINCT FROM NEW.category_id
                   OR OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION pet_counts_apply()`);
    await queryRunner.query(`DROP FUNCTION pet_counts_moved()`);
    await queryRunner.query(`DROP FUNCTION pet_counts_changed()`);
  }
}
