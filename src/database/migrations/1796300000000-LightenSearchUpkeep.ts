import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search triggers of a create in fewer calls (docs/performance.md, "Search upkeep"):
 * - A link's `pet_age` is filled in by the links' statement trigger, after the statement,
 *   where the new pet is visible, instead of a row trigger called before each link (twice
 *   per create of a pet without an age, for nothing) and the pet's insert trigger (for links
 *   a previous release's create wrote without it). The API's own writes give the age with
 *   the link, so the fill-in only writes for another writer's links.
 * - `pet_documents_refresh` builds the documents in its one statement, the category and
 *   the tags joined, instead of calling `pet_document` per pet (two more statements each),
 *   and returns at once for no pet (the links' trigger of a create, whose pet's document
 *   its insert trigger wrote).
 */
export class LightenSearchUpkeep1796300000000 implements MigrationInterface {
  name = 'LightenSearchUpkeep1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "pet_tags_pet_age" ON "pet_tags"`);
    await queryRunner.query(`DROP FUNCTION "pet_tags_pet_age"()`);
    // Tags in id order, as `tag_ids`: the same pet always gets the same document.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_documents_refresh"(ids bigint[]) RETURNS void
      LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
      BEGIN
        IF cardinality(ids) = 0 THEN
          RETURN;
        END IF;
        INSERT INTO pet_documents AS d (pet_id, document, status, category_id, tag_ids)
        SELECT p.id,
               setweight(to_tsvector('pet_search', p.name), 'A')
               || setweight(to_tsvector('pet_search', concat_ws(' ', p.breed, t.names)), 'B')
               || setweight(to_tsvector('pet_search', concat_ws(' ', c.name, p.description)), 'C'),
               p.status, p.category_id, COALESCE(t.tag_ids, '{}')
          FROM pets p
          JOIN categories c ON c.id = p.category_id
          LEFT JOIN LATERAL (
            SELECT string_agg(tag.name, ' ' ORDER BY tag.id) AS names,
                   array_agg(tag.id ORDER BY tag.id) AS tag_ids
              FROM pet_tags pt JOIN tags tag ON tag.id = pt.tag_id
             WHERE pt.pet_id = p.id) t ON true
         WHERE p.id = ANY(ids) ORDER BY p.id
        ON CONFLICT (pet_id) DO UPDATE
           SET document = EXCLUDED.document, status = EXCLUDED.status,
               category_id = EXCLUDED.category_id, tag_ids = EXCLUDED.tag_ids
         WHERE (d.document, d.status, d.category_id, d.tag_ids)
               IS DISTINCT FROM (EXCLUDED.document, EXCLUDED.status, EXCLUDED.category_id, EXCLUDED.tag_ids);
      END $$`);
    await queryRunner.query(`DROP FUNCTION "pet_document"(bigint, text, text, text, bigint)`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pets_search_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(SELECT id FROM inserted));
        PERFORM search_words_add(ARRAY(SELECT concat_ws(' ', name, breed) FROM inserted));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_tags_search_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE pet_tags pt SET pet_age = p.age
            FROM changed c JOIN pets p ON p.id = c.pet_id
           WHERE c.pet_age IS NULL AND p.age IS NOT NULL
             AND pt.pet_id = c.pet_id AND pt.tag_id = c.tag_id;
        END IF;
        PERFORM pet_documents_refresh(ARRAY(
          SELECT DISTINCT d.pet_id FROM changed c JOIN pet_documents d ON d.pet_id = c.pet_id
           WHERE d.tag_ids <> ARRAY(SELECT pt.tag_id FROM pet_tags pt
                                     WHERE pt.pet_id = d.pet_id ORDER BY pt.tag_id)));
        RETURN NULL;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "pet_tags_search_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(
          SELECT DISTINCT d.pet_id FROM changed c JOIN pet_documents d ON d.pet_id = c.pet_id
           WHERE d.tag_ids <> ARRAY(SELECT pt.tag_id FROM pet_tags pt
                                     WHERE pt.pet_id = d.pet_id ORDER BY pt.tag_id)));
        RETURN NULL;
      END $$`);
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
      CREATE FUNCTION "pet_document"(pet bigint, pet_name text, pet_breed text,
                                     pet_description text, category bigint)
      RETURNS tsvector LANGUAGE plpgsql STABLE AS $$
      DECLARE
        tag_names text;
        category_name text;
      BEGIN
        SELECT string_agg(t.name, ' ') INTO tag_names
          FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.pet_id = pet;
        SELECT c.name INTO category_name FROM categories c WHERE c.id = category;
        RETURN setweight(to_tsvector('pet_search', pet_name), 'A')
            || setweight(to_tsvector('pet_search', concat_ws(' ', pet_breed, tag_names)), 'B')
            || setweight(to_tsvector('pet_search', concat_ws(' ', category_name, pet_description)), 'C');
      END $$`);
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
    await queryRunner.query(`
      CREATE FUNCTION "pet_tags_pet_age"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.pet_age := (SELECT age FROM pets WHERE id = NEW.pet_id);
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "pet_tags_pet_age" BEFORE INSERT ON "pet_tags"
      FOR EACH ROW WHEN (NEW."pet_age" IS NULL) EXECUTE FUNCTION "pet_tags_pet_age"()`);
  }
}
