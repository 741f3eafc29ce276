import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Adoptions (docs/adoptions.md): the table, its list indexes (newest first, by id, alone
 * (the primary key) and by adopter, pet and status), one open adoption per pet, and the trigger that lets a pet with
 * an open adoption move only through it (src/database/schema/adoptions.sql); a pet's history
 * entry names the adoption whose move made it.
 */
export class CreateAdoptions1796620000000 implements MigrationInterface {
  name = 'CreateAdoptions1796620000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TYPE "public"."adoption_status" AS ENUM('requested', 'approved', 'completed', 'rejected', 'cancelled', 'expired', 'returned')`,
    );
    await queryRunner.query(
      `CREATE TABLE "adoptions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "pet_id" bigint NOT NULL, "adopter_id" bigint NOT NULL, "status" "public"."adoption_status" NOT NULL, "message" character varying(1000), "hold_expires_at" TIMESTAMP(3) WITH TIME ZONE, "decided_by_id" bigint, "reason" character varying(500), "version" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_adoptions" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "adoptions" ADD CONSTRAINT "FK_adoptions_pet" FOREIGN KEY ("pet_id") REFERENCES "pets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "adoptions" ADD CONSTRAINT "FK_adoptions_adopter" FOREIGN KEY ("adopter_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "adoptions" ADD CONSTRAINT "FK_adoptions_decided_by" FOREIGN KEY ("decided_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_adoptions_adopter" ON "adoptions" ("adopter_id", "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_adoptions_pet" ON "adoptions" ("pet_id", "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_adoptions_status" ON "adoptions" ("status", "id" DESC)`,
    );
    await queryRunner.query(`ALTER TABLE "pet_events" ADD "adoption_id" bigint`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_adoptions_open_pet" ON "adoptions" ("pet_id") WHERE "status" IN ('requested', 'approved')`,
    );
    await queryRunner.query(`CREATE OR REPLACE FUNCTION pets_refuse_open_adoption() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM adoptions a
              WHERE a.pet_id = OLD.id AND a.status IN ('requested', 'approved')) THEN
    RAISE EXCEPTION 'Pet % has an open adoption', OLD.id
      USING ERRCODE = 'restrict_violation', CONSTRAINT = 'pets_open_adoption';
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$`);
    await queryRunner.query(
      `CREATE OR REPLACE TRIGGER pets_open_adoption_move BEFORE UPDATE OF status ON pets
  FOR EACH ROW EXECUTE FUNCTION pets_refuse_open_adoption()`,
    );
    await queryRunner.query(
      `CREATE OR REPLACE TRIGGER pets_open_adoption_delete BEFORE DELETE ON pets
  FOR EACH ROW EXECUTE FUNCTION pets_refuse_open_adoption()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER pets_open_adoption_delete ON pets`);
    await queryRunner.query(`DROP TRIGGER pets_open_adoption_move ON pets`);
    await queryRunner.query(`DROP FUNCTION pets_refuse_open_adoption()`);
    await queryRunner.query(`ALTER TABLE "pet_events" DROP COLUMN "adoption_id"`);
    await queryRunner.query(`DROP TABLE "adoptions"`);
    await queryRunner.query(`DROP TYPE "public"."adoption_status"`);
  }
}
