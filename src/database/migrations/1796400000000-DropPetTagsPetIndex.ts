import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `pet_tags`' index on `pet_id` alone, created with the table, repeats the first column of
 * its primary key `(pet_id, tag_id)`, which serves every lookup by pet (a pet's tags, the
 * cascade of a pet's delete) as well. Every link a create or an update writes paid for
 * both (docs/performance.md, "Search upkeep").
 */
export class DropPetTagsPetIndex1796400000000 implements MigrationInterface {
  name = 'DropPetTagsPetIndex1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_4771036460e95ff8bd540c9759"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_4771036460e95ff8bd540c9759" ON "pet_tags" ("pet_id")`,
    );
  }
}
