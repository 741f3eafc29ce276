import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAccountTokens1795782692859 implements MigrationInterface {
  name = 'CreateAccountTokens1795782692859';

  // IF NOT EXISTS: the customer role's own change may add the value too (issue 27).
  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "account_tokens" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "token_hash" character(64) NOT NULL, "purpose" character varying(16) NOT NULL, "user_id" bigint NOT NULL, "email" character varying(254), "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "UQ_account_tokens_token_hash" UNIQUE ("token_hash"), CONSTRAINT "PK_account_tokens" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_account_tokens_user_id" ON "account_tokens"  ("user_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "mail_quotas" ("address" character varying(254) NOT NULL, "sent_at" TIMESTAMP WITH TIME ZONE array NOT NULL, "last_sent_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_mail_quotas" PRIMARY KEY ("address"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_mail_quotas_last_sent_at" ON "mail_quotas"  ("last_sent_at") `,
    );
    await queryRunner.query(`ALTER TABLE "users" ADD "pending_email" character varying(254)`);
    await queryRunner.query(
      `ALTER TABLE "users" ADD "pending_email_expires_at" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(`ALTER TYPE "public"."user_role" ADD VALUE IF NOT EXISTS 'customer'`);
    await queryRunner.query(
      `ALTER TABLE "account_tokens" ADD CONSTRAINT "FK_account_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "account_tokens" DROP CONSTRAINT "FK_account_tokens_user"`,
    );
    await queryRunner.query(`CREATE TYPE "public"."user_role_old" AS ENUM('admin', 'user')`);
    await queryRunner.query(
      `ALTER TABLE "users" ALTER COLUMN "role" TYPE "public"."user_role_old" USING "role"::"text"::"public"."user_role_old"`,
    );
    await queryRunner.query(`DROP TYPE "public"."user_role"`);
    await queryRunner.query(`ALTER TYPE "public"."user_role_old" RENAME TO "user_role"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "pending_email_expires_at"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "pending_email"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_mail_quotas_last_sent_at"`);
    await queryRunner.query(`DROP TABLE "mail_quotas"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_account_tokens_user_id"`);
    await queryRunner.query(`DROP TABLE "account_tokens"`);
  }
}
