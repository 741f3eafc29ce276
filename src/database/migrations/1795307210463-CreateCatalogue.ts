import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCatalogue1795307210463 implements MigrationInterface {
  name = 'CreateCatalogue1795307210463';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "categories" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "name" character varying(50) NOT NULL, "description" character varying(500), "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_24dbc6126a28ff948da33e97d3b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "tags" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "name" character varying(50) NOT NULL, CONSTRAINT "UQ_tags_name" UNIQUE ("name"), CONSTRAINT "PK_e7dc17249a1148a1970748eda99" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TYPE "public"."pet_status" AS ENUM('available', 'pending', 'sold')`,
    );
    await queryRunner.query(
      `CREATE TABLE "pets" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "name" character varying(100) NOT NULL, "category_id" bigint NOT NULL, "status" "public"."pet_status" NOT NULL, "photo_urls" text array NOT NULL DEFAULT '{}', "age" integer, "breed" character varying(100), "description" text, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d01e9e7b4ada753c826720bee8b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "pet_tags" ("pet_id" bigint NOT NULL, "tag_id" bigint NOT NULL, CONSTRAINT "PK_ef9ede3414e6f8217a95e5384d6" PRIMARY KEY ("pet_id", "tag_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_4771036460e95ff8bd540c9759" ON "pet_tags"  ("pet_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_1acd3b1ac00ae589f13c485fb8" ON "pet_tags"  ("tag_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "pets" ADD CONSTRAINT "FK_pets_category" FOREIGN KEY ("category_id") REFERENCES "categories"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "pet_tags" ADD CONSTRAINT "FK_pet_tags_pet" FOREIGN KEY ("pet_id") REFERENCES "pets"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    );
    await queryRunner.query(
      `ALTER TABLE "pet_tags" ADD CONSTRAINT "FK_pet_tags_tag" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    );
    // Hand-written: expression and ordering indexes the schema builder cannot describe.
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_categories_name_lower" ON "categories" (lower("name"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_pets_created" ON "pets" ("created_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_pets_category_status_created" ON "pets" ("category_id", "status", "created_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_pets_status_created" ON "pets" ("status", "created_at" DESC, "id" DESC)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_pets_status_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_pets_category_status_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_pets_created"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_categories_name_lower"`);
    await queryRunner.query(`ALTER TABLE "pet_tags" DROP CONSTRAINT "FK_pet_tags_tag"`);
    await queryRunner.query(`ALTER TABLE "pet_tags" DROP CONSTRAINT "FK_pet_tags_pet"`);
    await queryRunner.query(`ALTER TABLE "pets" DROP CONSTRAINT "FK_pets_category"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_1acd3b1ac00ae589f13c485fb8"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_4771036460e95ff8bd540c9759"`);
    await queryRunner.query(`DROP TABLE "pet_tags"`);
    await queryRunner.query(`DROP TABLE "pets"`);
    await queryRunner.query(`DROP TYPE "public"."pet_status"`);
    await queryRunner.query(`DROP TABLE "tags"`);
    await queryRunner.query(`DROP TABLE "categories"`);
  }
}
