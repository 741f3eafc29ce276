import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The expiry warning (docs/identity.md, "Expiry and rolling"): when a key's owner was told of
 * its end, so that it is told once. The index holds only the keys still to warn, which the
 * recurring job reads by their end.
 */
export class AddApiKeyExpiryWarning1796660000000 implements MigrationInterface {
  name = 'AddApiKeyExpiryWarning1796660000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD "expiry_warned_at" TIMESTAMP(3) WITH TIME ZONE`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_api_keys_expiry_unwarned" ON "api_keys" ("expires_at") WHERE "expiry_warned_at" IS NULL AND "expires_at" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_api_keys_expiry_unwarned"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "expiry_warned_at"`);
  }
}
