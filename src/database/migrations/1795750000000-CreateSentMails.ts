import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The mails sent for each outbox message, so that none goes twice (docs/mail.md, "Never twice"). */
export class CreateSentMails1795750000000 implements MigrationInterface {
  name = 'CreateSentMails1795750000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sent_mails" ("outbox_message_id" bigint NOT NULL, "template" text NOT NULL, "sent_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_sent_mails" PRIMARY KEY ("outbox_message_id", "template"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_sent_mails_sent_at" ON "sent_mails" ("sent_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "sent_mails"`);
  }
}
