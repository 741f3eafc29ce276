import { MigrationInterface, QueryRunner } from 'typeorm';

export class AddTokensValidAfter1795434961251 implements MigrationInterface {
  name = 'AddTokensValidAfter1795434961251';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "users" ADD "tokens_valid_after" TIMESTAMP(3) WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "tokens_valid_after"`);
  }
}
