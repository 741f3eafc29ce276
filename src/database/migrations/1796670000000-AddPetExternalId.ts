import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pet's `externalId` (contract section 9, "Catalogue import and export"): the shop's own
 * id, optional and unique as written (case matters: it is someone else's key). The unique
 * index also serves the list's `externalId=` filter and the import's upsert.
 */
export class AddPetExternalId1796670000000 implements MigrationInterface {
  name = 'AddPetExternalId1796670000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pets" ADD "external_id" character varying(100)`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_pets_external_id" ON "pets" ("external_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "UQ_pets_external_id"`);
    await queryRunner.query(`ALTER TABLE "pets" DROP COLUMN "external_id"`);
  }
}
