import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateIdempotencyKeys1795488928216 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1795488928216';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("user_id" bigint NOT NULL, "operation" character varying(200) NOT NULL, "key" character varying(255) NOT NULL, "fingerprint" character(64) NOT NULL, "token" uuid NOT NULL, "locked_until" TIMESTAMP(3) WITH TIME ZONE, "response_status" smallint, "response_headers" jsonb, "response_body" json, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_idempotency_keys" PRIMARY KEY ("user_id", "operation", "key"))`,
    );
    // The bulk expiry deletes by this column.
    await queryRunner.query(
      `CREATE INDEX "IDX_idempotency_keys_expires_at" ON "idempotency_keys" ("expires_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_idempotency_keys_expires_at"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
