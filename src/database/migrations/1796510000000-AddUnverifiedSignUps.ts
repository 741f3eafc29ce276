import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marks the sign-ups whose address is not verified yet, which UNVERIFIED_ACCOUNT_TTL_HOURS
 * after their creation are removed (docs/identity.md, "Mailed tokens and account flows").
 * The pending accounts already there are marked when they are sign-ups: recorded as
 * `auth.registered`, or, made before the audit log, customers without an invitation link
 * and without an admin's `user.created` entry.
 */
export class AddUnverifiedSignUps1796510000000 implements MigrationInterface {
  name = 'AddUnverifiedSignUps1796510000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "users" ADD "unverified_sign_up" boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(
      `UPDATE "users" u SET "unverified_sign_up" = true
        WHERE u."user_status" = 2
          AND (EXISTS (SELECT 1 FROM "audit_events" a
                        WHERE a."action" = 'auth.registered' AND a."target_type" = 'user'
                          AND a."target_id" = u."id")
               OR (u."role" = 'customer'
                   AND NOT EXISTS (SELECT 1 FROM "account_tokens" t
                                    WHERE t."user_id" = u."id" AND t."purpose" = 'invitation')
                   AND NOT EXISTS (SELECT 1 FROM "audit_events" a
                                    WHERE a."action" = 'user.created' AND a."target_type" = 'user'
                                      AND a."target_id" = u."id")))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_users_unverified_sign_up_created" ON "users" ("created_at") WHERE "unverified_sign_up"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_users_unverified_sign_up_created"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "unverified_sign_up"`);
  }
}
