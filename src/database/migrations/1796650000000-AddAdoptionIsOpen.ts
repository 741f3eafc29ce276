import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One definition of an open adoption in SQL (src/database/schema/adoptions.sql):
 * `adoption_is_open(status)`, which the unique index of a pet's open adoption and the trigger
 * that holds such a pet now call instead of each listing the statuses. The index is made
 * again on the function, under its name, so that the statements calling it can use it.
 */
const IS_OPEN = `CREATE OR REPLACE FUNCTION adoption_is_open(status adoption_status) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN status IN ('requested', 'approved')`;

const REFUSE_OPEN_ADOPTION = `CREATE OR REPLACE FUNCTION pets_refuse_open_adoption() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM adoptions a WHERE a.pet_id = OLD.id AND adoption_is_open(a.status)) THEN
    RAISE EXCEPTION 'Pet % has an open adoption', OLD.id
      USING ERRCODE = 'restrict_violation', CONSTRAINT = 'pets_open_adoption';
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$`;

const PREVIOUS_REFUSE_OPEN_ADOPTION = `CREATE OR REPLACE FUNCTION pets_refuse_open_adoption() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM adoptions a
              WHERE a.pet_id = OLD.id AND a.status IN ('requested', 'approved')) THEN
    RAISE EXCEPTION 'Pet % has an open adoption', OLD.id
      USING ERRCODE = 'restrict_violation', CONSTRAINT = 'pets_open_adoption';
  END IF;
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$`;

export class AddAdoptionIsOpen1796650000000 implements MigrationInterface {
  name = 'AddAdoptionIsOpen1796650000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(IS_OPEN);
    await queryRunner.query(`DROP INDEX "UQ_adoptions_open_pet"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_adoptions_open_pet" ON "adoptions" ("pet_id") WHERE adoption_is_open("status")`,
    );
    await queryRunner.query(REFUSE_OPEN_ADOPTION);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(PREVIOUS_REFUSE_OPEN_ADOPTION);
    await queryRunner.query(`DROP INDEX "UQ_adoptions_open_pet"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_adoptions_open_pet" ON "adoptions" ("pet_id") WHERE "status" IN ('requested', 'approved')`,
    );
    await queryRunner.query(`DROP FUNCTION adoption_is_open(adoption_status)`);
  }
}
