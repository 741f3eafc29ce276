import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalogue imports (docs/pet-imports.md): each import's file, kept until it ends so that a
 * restart resumes it, its counts and errors, and its durable cursor.
 */
export class CreatePetImports1796670000001 implements MigrationInterface {
  name = 'CreatePetImports1796670000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pet_imports" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "status" character varying(10) NOT NULL, "mode" character varying(6) NOT NULL, "dry_run" boolean NOT NULL, "format" character varying(6) NOT NULL, "file" bytea, "actor" jsonb NOT NULL, "counts" jsonb NOT NULL, "cursor" integer NOT NULL, "invalid_rows" integer array NOT NULL, "errors" jsonb NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_pet_imports" PRIMARY KEY ("id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "pet_imports"`);
  }
}
