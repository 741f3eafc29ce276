import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the slow searches read pet by pet, kept where they count (docs/performance.md,
 * "Search"):
 * - `pet_tags.pet_age`, the linked pet's age, under the tag's index: a tag with an age range
 *   (`tag=…&minAge=…`) counts from that index alone instead of reading every pet of the tag.
 *   The statement creating a pet writes it (the new pet is not visible to a row trigger of
 *   the same statement; where it does not, the pet's insert trigger fills it in); any other
 *   link is filled in by `pet_tags_pet_age`, and an age change is copied to the pet's links
 *   by `pets_age_to_tags`.
 * - `pet_documents.status`, `category_id` and `tag_ids`: the facets of a search count from
 *   the matching documents alone instead of reading each match's pet and links. Written by
 *   `pet_documents_refresh` with the document, and a status change now refreshes it too.
 */
export class KeepSearchFacts1796100000000 implements MigrationInterface {
  name = 'KeepSearchFacts1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "pet_tags" ADD "pet_age" integer`);
    await queryRunner.query(
      `UPDATE "pet_tags" pt SET "pet_age" = p."age" FROM "pets" p WHERE p."id" = pt."pet_id"`,
    );
    // The tag's index with the age beside it replaces the tag's index alone.
    await queryRunner.query(
      `CREATE INDEX "IDX_pet_tags_tag_age" ON "pet_tags" ("tag_id", "pet_age")`,
    );
    await queryRunner.query(`DROP INDEX "IDX_1acd3b1ac00ae589f13c485fb8"`);
    await queryRunner.query(`
      CREATE FUNCTION "pet_tags_pet_age"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.pet_age := (SELECT age FROM pets WHERE id = NEW.pet_id);
        RETURN NEW;
      END $$`);
    // Only links written without an age: a pet without one costs a look-up that finds none.
    await queryRunner.query(`
      CREATE TRIGGER "pet_tags_pet_age" BEFORE INSERT ON "pet_tags"
      FOR EACH ROW WHEN (NEW."pet_age" IS NULL) EXECUTE FUNCTION "pet_tags_pet_age"()`);
    await queryRunner.query(`
      CREATE FUNCTION "pets_age_to_tags"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE pet_tags SET pet_age = NEW.age
         WHERE pet_id = NEW.id AND pet_age IS DISTINCT FROM NEW.age;
        RETURN NULL;
      END $$`);
    // After the statement's own links are written: those it linked get the new age too.
    await queryRunner.query(`
      CREATE TRIGGER "pets_age_to_tags" AFTER UPDATE OF "age" ON "pets"
      FOR EACH ROW WHEN (OLD."age" IS DISTINCT FROM NEW."age")
      EXECUTE FUNCTION "pets_age_to_tags"()`);
    // Links written with the pet in one statement but without its age (the previous
    // release's create, during a rolling update) get it once the pet is visible.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pets_search_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(SELECT id FROM inserted));
        PERFORM search_words_add(ARRAY(SELECT concat_ws(' ', name, breed) FROM inserted));
        UPDATE pet_tags pt SET pet_age = i.age FROM inserted i
         WHERE pt.pet_id = i.id AND i.age IS NOT NULL AND pt.pet_age IS NULL;
        RETURN NULL;
      END $$`);

    await queryRunner.query(`
      ALTER TABLE "pet_documents" ADD "status" "public"."pet_status",
                                  ADD "category_id" bigint,
                                  ADD "tag_ids" bigint[]`);
    await queryRunner.query(`
      UPDATE "pet_documents" d
         SET "status" = p."status", "category_id" = p."category_id",
             "tag_ids" = ARRAY(SELECT pt."tag_id" FROM "pet_tags" pt
                                WHERE pt."pet_id" = p."id" ORDER BY pt."tag_id")
        FROM "pets" p WHERE p."id" = d."pet_id"`);
    await queryRunner.query(`
      ALTER TABLE "pet_documents" ALTER "status" SET NOT NULL,
                                  ALTER "category_id" SET NOT NULL,
                                  ALTER "tag_ids" SET NOT NULL`);
    // One generic plan, kept for the session: with the ids as a parameter, PostgreSQL made a
    // custom plan on every call (a third of a create statement's time), for the same plan.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_documents_refresh"(ids bigint[]) RETURNS void
      LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
      BEGIN
        INSERT INTO pet_documents AS d (pet_id, document, status, category_id, tag_ids)
        SELECT p.id, pet_document(p.id, p.name, p.breed, p.description, p.category_id),
               p.status, p.category_id,
               ARRAY(SELECT pt.tag_id FROM pet_tags pt WHERE pt.pet_id = p.id ORDER BY pt.tag_id)
          FROM pets p WHERE p.id IN (SELECT unnest(ids)) ORDER BY p.id
        ON CONFLICT (pet_id) DO UPDATE
           SET document = EXCLUDED.document, status = EXCLUDED.status,
               category_id = EXCLUDED.category_id, tag_ids = EXCLUDED.tag_ids
         WHERE (d.document, d.status, d.category_id, d.tag_ids)
               IS DISTINCT FROM (EXCLUDED.document, EXCLUDED.status, EXCLUDED.category_id, EXCLUDED.tag_ids);
      END $$`);
    // Links change the documents whose tag ids differ from them. A pet created with tags in
    // one statement has no document yet, or one with these tags: its own insert trigger
    // writes it, seeing the links, whichever trigger runs first. Computing the document a
    // second time for the links was a third of a create's database time.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_tags_search_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(
          SELECT DISTINCT d.pet_id FROM changed c JOIN pet_documents d ON d.pet_id = c.pet_id
           WHERE d.tag_ids <> ARRAY(SELECT pt.tag_id FROM pet_tags pt
                                     WHERE pt.pet_id = d.pet_id ORDER BY pt.tag_id)));
        RETURN NULL;
      END $$`);
    // A status change refreshes the document's row; the words change only with a name or a breed.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pets_search_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY[NEW.id]);
        IF OLD.name IS DISTINCT FROM NEW.name OR OLD.breed IS DISTINCT FROM NEW.breed THEN
          PERFORM search_words_add(ARRAY[concat_ws(' ', NEW.name, NEW.breed)]);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`DROP TRIGGER "pets_search_update" ON "pets"`);
    await queryRunner.query(`
      CREATE TRIGGER "pets_search_update"
      AFTER UPDATE OF "name", "breed", "description", "category_id", "status" ON "pets"
      FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name"
                         OR OLD."breed" IS DISTINCT FROM NEW."breed"
                         OR OLD."description" IS DISTINCT FROM NEW."description"
                         OR OLD."category_id" IS DISTINCT FROM NEW."category_id"
                         OR OLD."status" IS DISTINCT FROM NEW."status")
      EXECUTE FUNCTION "pets_search_updated"()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "pets_search_update" ON "pets"`);
    await queryRunner.query(`
      CREATE TRIGGER "pets_search_update"
      AFTER UPDATE OF "name", "breed", "description", "category_id" ON "pets"
      FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name"
                         OR OLD."breed" IS DISTINCT FROM NEW."breed"
                         OR OLD."description" IS DISTINCT FROM NEW."description"
                         OR OLD."category_id" IS DISTINCT FROM NEW."category_id")
      EXECUTE FUNCTION "pets_search_updated"()`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pets_search_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY[NEW.id]);
        PERFORM search_words_add(ARRAY[concat_ws(' ', NEW.name, NEW.breed)]);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_documents_refresh"(ids bigint[]) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO pet_documents AS d (pet_id, document)
        SELECT p.id, pet_document(p.id, p.name, p.breed, p.description, p.category_id)
          FROM pets p WHERE p.id IN (SELECT unnest(ids)) ORDER BY p.id
        ON CONFLICT (pet_id) DO UPDATE SET document = EXCLUDED.document
         WHERE d.document IS DISTINCT FROM EXCLUDED.document;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_tags_search_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(SELECT DISTINCT pet_id FROM changed));
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `ALTER TABLE "pet_documents" DROP "tag_ids", DROP "category_id", DROP "status"`,
    );
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pets_search_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(SELECT id FROM inserted));
        PERFORM search_words_add(ARRAY(SELECT concat_ws(' ', name, breed) FROM inserted));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`DROP TRIGGER "pets_age_to_tags" ON "pets"`);
    await queryRunner.query(`DROP FUNCTION "pets_age_to_tags"()`);
    await queryRunner.query(`DROP TRIGGER "pet_tags_pet_age" ON "pet_tags"`);
    await queryRunner.query(`DROP FUNCTION "pet_tags_pet_age"()`);
    await queryRunner.query(
      `CREATE INDEX "IDX_1acd3b1ac00ae589f13c485fb8" ON "pet_tags" ("tag_id")`,
    );
    await queryRunner.query(`DROP INDEX "IDX_pet_tags_tag_age"`);
    await queryRunner.query(`ALTER TABLE "pet_tags" DROP "pet_age"`);
  }
}
