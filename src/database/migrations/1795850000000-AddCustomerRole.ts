import { MigrationInterface, QueryRunner } from 'typeorm';

export class AddCustomerRole1795850000000 implements MigrationInterface {
  name = 'AddCustomerRole1795850000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TYPE "public"."user_role" ADD VALUE IF NOT EXISTS 'customer'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // PostgreSQL cannot drop an enum value: rebuild the type without it.
    await queryRunner.query(`UPDATE "users" SET "role" = 'user' WHERE "role" = 'customer'`);
    await queryRunner.query(`ALTER TYPE "public"."user_role" RENAME TO "user_role_old"`);
    await queryRunner.query(`CREATE TYPE "public"."user_role" AS ENUM('admin', 'user')`);
    await queryRunner.query(`ALTER TABLE "users" ALTER COLUMN "role" DROP DEFAULT`);
    await queryRunner.query(
      `ALTER TABLE "users" ALTER COLUMN "role" TYPE "public"."user_role" USING "role"::text::"public"."user_role"`,
    );
    await queryRunner.query(`ALTER TABLE "users" ALTER COLUMN "role" SET DEFAULT 'user'`);
    await queryRunner.query(`DROP TYPE "public"."user_role_old"`);
  }
}
