import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Staff sign-in's second factor (TOTP), its recovery codes and the logins waiting for it. */
export class CreateMfaFactors1796690000000 implements MigrationInterface {
  name = 'CreateMfaFactors1796690000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "totp_factors" ("user_id" bigint NOT NULL, "secret" text NOT NULL, "confirmed_at" TIMESTAMP(3) WITH TIME ZONE, "last_time_step" bigint, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_totp_factors" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "recovery_codes" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "user_id" bigint NOT NULL, "code_hash" character(64) NOT NULL, "used_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "UQ_recovery_codes_user_code" UNIQUE ("user_id", "code_hash"), CONSTRAINT "PK_recovery_codes" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "mfa_challenges" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "user_id" bigint NOT NULL, "token_hash" character(64) NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "failures" integer NOT NULL DEFAULT 0, CONSTRAINT "UQ_mfa_challenges_token_hash" UNIQUE ("token_hash"), CONSTRAINT "PK_mfa_challenges" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_mfa_challenges_user_id" ON "mfa_challenges" ("user_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "totp_factors" ADD CONSTRAINT "FK_totp_factors_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "recovery_codes" ADD CONSTRAINT "FK_recovery_codes_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "mfa_challenges" ADD CONSTRAINT "FK_mfa_challenges_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "mfa_challenges" DROP CONSTRAINT "FK_mfa_challenges_user"`,
    );
    await queryRunner.query(
      `ALTER TABLE "recovery_codes" DROP CONSTRAINT "FK_recovery_codes_user"`,
    );
    await queryRunner.query(`ALTER TABLE "totp_factors" DROP CONSTRAINT "FK_totp_factors_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_mfa_challenges_user_id"`);
    await queryRunner.query(`DROP TABLE "mfa_challenges"`);
    await queryRunner.query(`DROP TABLE "recovery_codes"`);
    await queryRunner.query(`DROP TABLE "totp_factors"`);
  }
}
