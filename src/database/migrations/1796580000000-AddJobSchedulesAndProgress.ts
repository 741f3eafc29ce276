import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox becomes the job engine (docs/jobs.md): a job reports its progress on its row,
 * and each recurring job has a schedule row whose next run one instance at a time moves on.
 */
export class AddJobSchedulesAndProgress1796580000000 implements MigrationInterface {
  name = 'AddJobSchedulesAndProgress1796580000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_messages" ADD "progress" jsonb`);
    await queryRunner.query(
      `CREATE TABLE "job_schedules" ("queue" text NOT NULL, "every_ms" integer NOT NULL, "next_run_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, CONSTRAINT "PK_job_schedules" PRIMARY KEY ("queue"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "job_schedules"`);
    await queryRunner.query(`ALTER TABLE "outbox_messages" DROP COLUMN "progress"`);
  }
}
