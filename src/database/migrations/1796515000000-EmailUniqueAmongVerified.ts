import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An address is unique among the accounts that hold it, not among sign-ups awaiting its
 * verification (user_status 2): a sign-up with an address another account has is created
 * like any other, so that nothing it answers tells the address is registered
 * (docs/identity.md, "Mailed tokens and account flows"). Verifying such an account trips
 * this index, and is refused.
 */
export class EmailUniqueAmongVerified1796515000000 implements MigrationInterface {
  name = 'EmailUniqueAmongVerified1796515000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."UQ_users_email_lower"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_users_email_lower" ON "users" (lower("email")) WHERE "user_status" <> 2`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_users_email_lower_pending" ON "users" (lower("email")) WHERE "user_status" = 2`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_users_email_lower_pending"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_users_email_lower"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_users_email_lower" ON "users" (lower("email"))`,
    );
  }
}
