import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSessions1795800000000 implements MigrationInterface {
  name = 'CreateSessions1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sessions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "user_id" bigint NOT NULL, "token_hash" character(64) NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "user_agent" character varying(256), "ip" character varying(45), "revoked_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "UQ_sessions_token_hash" UNIQUE ("token_hash"), CONSTRAINT "PK_sessions" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_sessions_user_id" ON "sessions" ("user_id") `);
    await queryRunner.query(
      `CREATE TABLE "spent_refresh_tokens" ("token_hash" character(64) NOT NULL, "session_id" bigint NOT NULL, CONSTRAINT "PK_spent_refresh_tokens" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_spent_refresh_tokens_session_id" ON "spent_refresh_tokens" ("session_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD CONSTRAINT "FK_sessions_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "spent_refresh_tokens" ADD CONSTRAINT "FK_spent_refresh_tokens_session" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "spent_refresh_tokens" DROP CONSTRAINT "FK_spent_refresh_tokens_session"`,
    );
    await queryRunner.query(`ALTER TABLE "sessions" DROP CONSTRAINT "FK_sessions_user"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_spent_refresh_tokens_session_id"`);
    await queryRunner.query(`DROP TABLE "spent_refresh_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_sessions_user_id"`);
    await queryRunner.query(`DROP TABLE "sessions"`);
  }
}
