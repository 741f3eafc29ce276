import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Staff sign-in's passkeys (WebAuthn credentials) and the challenges of their ceremonies. */
export class CreatePasskeys1796700000000 implements MigrationInterface {
  name = 'CreatePasskeys1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "passkeys" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "user_id" bigint NOT NULL, "credential_id" character varying(1366) NOT NULL, "public_key" bytea NOT NULL, "counter" bigint NOT NULL DEFAULT '0', "transports" text array NOT NULL, "name" character varying(64) NOT NULL, "device_type" character varying(16) NOT NULL, "backed_up" boolean NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "UQ_passkeys_credential_id" UNIQUE ("credential_id"), CONSTRAINT "PK_passkeys" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_passkeys_user_id" ON "passkeys" ("user_id") `);
    await queryRunner.query(
      `CREATE TABLE "passkey_challenges" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "challenge" character varying(64) NOT NULL, "purpose" character varying(16) NOT NULL, "user_id" bigint, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "UQ_passkey_challenges_challenge" UNIQUE ("challenge"), CONSTRAINT "PK_passkey_challenges" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_passkey_challenges_expires_at" ON "passkey_challenges" ("expires_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "passkeys" ADD CONSTRAINT "FK_passkeys_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "passkey_challenges" ADD CONSTRAINT "FK_passkey_challenges_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "passkey_challenges" DROP CONSTRAINT "FK_passkey_challenges_user"`,
    );
    await queryRunner.query(`ALTER TABLE "passkeys" DROP CONSTRAINT "FK_passkeys_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_passkey_challenges_expires_at"`);
    await queryRunner.query(`DROP TABLE "passkey_challenges"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_passkeys_user_id"`);
    await queryRunner.query(`DROP TABLE "passkeys"`);
  }
}
