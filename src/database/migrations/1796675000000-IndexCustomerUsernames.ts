import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Staff find a customer by the start of its username (`GET /users/customers`): a prefix
 * `LIKE` on `lower(username)` can use a btree only in the byte order of `text_pattern_ops`,
 * and only the active customers are ever looked for.
 */
export class IndexCustomerUsernames1796675000000 implements MigrationInterface {
  name = 'IndexCustomerUsernames1796675000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_users_active_customer_username_prefix" ON "users" (lower("username") text_pattern_ops) WHERE "role" = 'customer' AND "user_status" = 0`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_users_active_customer_username_prefix"`);
  }
}
