import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAuditEvents1796000000000 implements MigrationInterface {
  name = 'CreateAuditEvents1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_events" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "occurred_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "action" character varying(64) NOT NULL, "outcome" character varying(16) NOT NULL, "actor_user_id" bigint, "actor_username" character varying(200), "actor_credential" character varying(16) NOT NULL, "actor_api_key_prefix" character varying(16), "target_type" character varying(32), "target_id" bigint, "changes" jsonb, "ip" character varying(45), "user_agent" character varying(256), "request_id" character varying(128), CONSTRAINT "PK_audit_events" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_occurred_at" ON "audit_events" ("occurred_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_action" ON "audit_events" ("action", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_actor" ON "audit_events" ("actor_user_id", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_audit_events_target" ON "audit_events" ("target_type", "target_id", "id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_audit_events_target"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_audit_events_actor"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_audit_events_action"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_audit_events_occurred_at"`);
    await queryRunner.query(`DROP TABLE "audit_events"`);
  }
}
