import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version per pet, category and user, raised by every write of the row: the strong ETag of
 * the resource, and what a conditional PUT or DELETE (If-Match) compares in its WHERE clause.
 */
export class AddRowVersions1795488516143 implements MigrationInterface {
  name = 'AddRowVersions1795488516143';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['pets', 'categories', 'users']) {
      await queryRunner.query(`ALTER TABLE "${table}" ADD "version" integer NOT NULL DEFAULT 1`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['users', 'categories', 'pets']) {
      await queryRunner.query(`ALTER TABLE "${table}" DROP COLUMN "version"`);
    }
  }
}
