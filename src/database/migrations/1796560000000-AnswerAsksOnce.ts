import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The anonymous asks answered, by outbox message, so that an ask handed over again does
 * nothing; and each account's last password or email change, which a reset asked before it
 * does not outlive (docs/identity.md, "Mailed tokens and account flows").
 */
export class AnswerAsksOnce1796560000000 implements MigrationInterface {
  name = 'AnswerAsksOnce1796560000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "answered_asks" ("outbox_message_id" bigint NOT NULL, "answered_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_answered_asks" PRIMARY KEY ("outbox_message_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_answered_asks_answered_at" ON "answered_asks" ("answered_at")`,
    );
    await queryRunner.query(
      `CREATE TABLE "credential_changes" ("user_id" bigint NOT NULL, "changed_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_credential_changes" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "credential_changes" ADD CONSTRAINT "FK_credential_changes_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "credential_changes"`);
    await queryRunner.query(`DROP TABLE "answered_asks"`);
  }
}
