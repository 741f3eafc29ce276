import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreatePetImages1795307848142 implements MigrationInterface {
  name = 'CreatePetImages1795307848142';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TYPE "public"."image_format" AS ENUM('jpeg', 'png', 'gif')`);
    await queryRunner.query(
      `CREATE TABLE "pet_images" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "pet_id" bigint NOT NULL, "key" character varying(64) NOT NULL, "thumbnail_key" character varying(64) NOT NULL, "description" character varying(500), "width" integer NOT NULL, "height" integer NOT NULL, "format" "public"."image_format" NOT NULL, "bytes" integer NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_pet_images_thumbnail_key" UNIQUE ("thumbnail_key"), CONSTRAINT "UQ_pet_images_key" UNIQUE ("key"), CONSTRAINT "PK_775f799e0181f91eefaa6ccd1de" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_pet_images_pet" ON "pet_images"  ("pet_id", "id") `);
    await queryRunner.query(
      `ALTER TABLE "pet_images" ADD CONSTRAINT "FK_pet_images_pet" FOREIGN KEY ("pet_id") REFERENCES "pets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pet_images" DROP CONSTRAINT "FK_pet_images_pet"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_pet_images_pet"`);
    await queryRunner.query(`DROP TABLE "pet_images"`);
    await queryRunner.query(`DROP TYPE "public"."image_format"`);
  }
}
