import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The adoption a pet moved to `pending` through, kept on the pet by its status moves
 * (docs/adoptions.md, "The pet"), so that `GET /pets/{id}` looks for an open adoption only
 * for a pet that has one: a pet moved to `pending` by a `PUT` costs no second statement.
 * Pets held today take their open adoption's id.
 */
export class RecordPetHolder1796645000000 implements MigrationInterface {
  name = 'RecordPetHolder1796645000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pets" ADD "held_by" bigint`);
    await queryRunner.query(
      `UPDATE pets p SET held_by = a.id
         FROM adoptions a
        WHERE a.pet_id = p.id AND a.status IN ('requested', 'approved')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pets" DROP COLUMN "held_by"`);
  }
}
