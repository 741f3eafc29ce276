import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pet's history records the actor's role (docs/events.md, "History"), so that a customer
 * reading it sees a customer's own adoption moves as a customer's, not staff's. Entries
 * written before take the actor's role now, the best there is; an actor since deleted stays
 * without one (read as staff, as before).
 */
export class RecordPetActorRole1796630001000 implements MigrationInterface {
  name = 'RecordPetActorRole1796630001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pet_events" ADD "actor_role" "public"."user_role"`);
    await queryRunner.query(
      `UPDATE "pet_events" e SET "actor_role" = u."role" FROM "users" u WHERE u."id" = e."actor_user_id"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pet_events" DROP COLUMN "actor_role"`);
  }
}
