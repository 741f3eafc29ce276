import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When an adoption closed (docs/adoptions.md, "Statistics"): the time of the move that ended
 * it open, kept by a later `return`, so that the activity statistics count completions and
 * expiries on their day. Indexed with the request time for the per-day counts. Adoptions
 * already closed take their last change's time, and a returned one its pet's sale.
 */
export class AddAdoptionClosedAt1796640000000 implements MigrationInterface {
  name = 'AddAdoptionClosedAt1796640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "adoptions" ADD "closed_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(
      `UPDATE adoptions a
          SET closed_at = CASE WHEN a.status = 'returned'
                               THEN COALESCE((SELECT min(e.occurred_at) FROM pet_events e
                                               WHERE e.adoption_id = a.id AND e.status_to = 'sold'),
                                             a.updated_at)
                               ELSE a.updated_at END
        WHERE a.status NOT IN ('requested', 'approved')`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_adoptions_created" ON "adoptions" ("created_at")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_adoptions_closed" ON "adoptions" ("closed_at") WHERE "closed_at" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_adoptions_closed"`);
    await queryRunner.query(`DROP INDEX "IDX_adoptions_created"`);
    await queryRunner.query(`ALTER TABLE "adoptions" DROP COLUMN "closed_at"`);
  }
}
