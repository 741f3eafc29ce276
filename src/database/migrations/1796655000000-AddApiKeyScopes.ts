import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API key scopes (docs/identity.md, "Scopes"): the list a key was limited to at creation.
 * Keys made before it have none, that is every scope their owner's role allows, as before.
 */
export class AddApiKeyScopes1796655000000 implements MigrationInterface {
  name = 'AddApiKeyScopes1796655000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "scopes" text array`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "scopes"`);
  }
}
