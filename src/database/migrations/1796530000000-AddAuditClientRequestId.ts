import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An audit entry's `request_id` is the service's own id; the caller's `X-Request-Id`, which
 * anyone can set to anything, is kept beside it (docs/api.md, "Audit log").
 */
export class AddAuditClientRequestId1796530000000 implements MigrationInterface {
  name = 'AddAuditClientRequestId1796530000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD "client_request_id" character varying(128)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_events" DROP COLUMN "client_request_id"`);
  }
}
