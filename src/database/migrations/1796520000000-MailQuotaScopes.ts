import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An address's mail quota is counted per scope: each requester's own, and the overall
 * caps (docs/identity.md, "Mail limit"), so that nobody spends a person's quota. The rows
 * counted so far become the overall cap of the other mails.
 */
export class MailQuotaScopes1796520000000 implements MigrationInterface {
  name = 'MailQuotaScopes1796520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "mail_quotas" ADD "scope" character varying(100) NOT NULL DEFAULT 'all'`,
    );
    await queryRunner.query(`ALTER TABLE "mail_quotas" ALTER COLUMN "scope" DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE "mail_quotas" DROP CONSTRAINT "PK_mail_quotas"`);
    await queryRunner.query(
      `ALTER TABLE "mail_quotas" ADD CONSTRAINT "PK_mail_quotas" PRIMARY KEY ("address", "scope")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "mail_quotas" WHERE "scope" <> 'all'`);
    await queryRunner.query(`ALTER TABLE "mail_quotas" DROP CONSTRAINT "PK_mail_quotas"`);
    await queryRunner.query(
      `ALTER TABLE "mail_quotas" ADD CONSTRAINT "PK_mail_quotas" PRIMARY KEY ("address")`,
    );
    await queryRunner.query(`ALTER TABLE "mail_quotas" DROP COLUMN "scope"`);
  }
}
