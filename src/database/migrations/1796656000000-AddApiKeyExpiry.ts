import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API key expiry (docs/identity.md, "Expiry and rolling"): when a key stops working, set at
 * creation or by a roll. Keys made before it never expire, as before.
 */
export class AddApiKeyExpiry1796656000000 implements MigrationInterface {
  name = 'AddApiKeyExpiry1796656000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "expires_at" TIMESTAMP(3) WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "expires_at"`);
  }
}
