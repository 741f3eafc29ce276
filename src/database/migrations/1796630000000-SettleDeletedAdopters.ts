import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A deleted adopter's adoptions (docs/adoptions.md, "A deleted adopter"): the deletion cancels
 * the open ones and keeps every one without its adopter, so `adopter_id` may be null, and the
 * foreign key refuses a deletion that has not done so (it cascaded, leaving a held pet with
 * no adoption).
 */
export class SettleDeletedAdopters1796630000000 implements MigrationInterface {
  name = 'SettleDeletedAdopters1796630000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "adoptions" DROP CONSTRAINT "FK_adoptions_adopter"`);
    await queryRunner.query(`ALTER TABLE "adoptions" ALTER COLUMN "adopter_id" DROP NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "adoptions" ADD CONSTRAINT "FK_adoptions_adopter" FOREIGN KEY ("adopter_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "adoptions" DROP CONSTRAINT "FK_adoptions_adopter"`);
    await queryRunner.query(`DELETE FROM "adoptions" WHERE "adopter_id" IS NULL`);
    await queryRunner.query(`ALTER TABLE "adoptions" ALTER COLUMN "adopter_id" SET NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "adoptions" ADD CONSTRAINT "FK_adoptions_adopter" FOREIGN KEY ("adopter_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}
