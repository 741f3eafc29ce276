import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search on `GET /pets` (docs/performance.md, "Search"). Every pet has a weighted text
 * document in `pet_documents` (name A; breed and tags B; category name and description C),
 * kept by triggers on pets, pet_tags and categories, under a GIN index. A table of its own,
 * not a column of pets: the document is complete only once the pet's tags are linked, at the
 * end of the creating statement, and writing it then into pets would write the pet's row
 * and all its indexes twice. `search_words` holds the name and breed lexemes (with a letter:
 * numbers have no typos worth correcting, and would be most of it) under a trigram index: a
 * query word that no document has is widened to the nearest of them (`pet_search_query`),
 * which finds `Labrador` for `labrdor`.
 */
export class AddPetSearch1795950000000 implements MigrationInterface {
  name = 'AddPetSearch1795950000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS "pg_trgm"`);
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS "unaccent"`);
    // English stemming, accents folded first: "Crème" finds "creme" and the other way round.
    await queryRunner.query(`CREATE TEXT SEARCH CONFIGURATION "pet_search" (COPY = english)`);
    await queryRunner.query(`
      ALTER TEXT SEARCH CONFIGURATION "pet_search"
        ALTER MAPPING FOR hword, hword_part, word WITH "unaccent", english_stem`);

    await queryRunner.query(`
      CREATE TABLE "pet_documents" (
        "pet_id" bigint NOT NULL REFERENCES "pets"("id") ON DELETE CASCADE,
        "document" tsvector NOT NULL,
        CONSTRAINT "PK_pet_documents" PRIMARY KEY ("pet_id")
      )`);
    await queryRunner.query(`CREATE TABLE "search_words" ("word" text PRIMARY KEY)`);

    // PL/pgSQL throughout: its statements' plans are kept for the session, where an SQL
    // function's were made again on every call (most of a trigger's cost).
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
    // Rows in id order and words in byte order: two writers lock them in one order (no 40P01).
    // A document equal to the stored one is not written again (a pet and its tags are
    // written by one statement, and both tables' triggers ask for the same document).
    await queryRunner.query(`
      CREATE FUNCTION "pet_documents_refresh"(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO pet_documents AS d (pet_id, document)
        SELECT p.id, pet_document(p.id, p.name, p.breed, p.description, p.category_id)
          FROM pets p WHERE p.id IN (SELECT unnest(ids)) ORDER BY p.id
        ON CONFLICT (pet_id) DO UPDATE SET document = EXCLUDED.document
         WHERE d.document IS DISTINCT FROM EXCLUDED.document;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "search_words_add"(texts text[]) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO search_words (word)
        SELECT DISTINCT w COLLATE "C" FROM unnest(texts) AS x(text),
               unnest(tsvector_to_array(to_tsvector('pet_search', x.text))) AS w
         WHERE w ~ '^[[:alnum:]]{3,}$' AND w ~ '[[:alpha:]]'
         ORDER BY 1
        ON CONFLICT (word) DO NOTHING;
      END $$`);

    await queryRunner.query(`
      CREATE FUNCTION "pets_search_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(SELECT id FROM inserted));
        PERFORM search_words_add(ARRAY(SELECT concat_ws(' ', name, breed) FROM inserted));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "pets_search_insert" AFTER INSERT ON "pets"
      REFERENCING NEW TABLE AS inserted
      FOR EACH STATEMENT EXECUTE FUNCTION "pets_search_inserted"()`);
    await queryRunner.query(`
      CREATE FUNCTION "pets_search_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY[NEW.id]);
        PERFORM search_words_add(ARRAY[concat_ws(' ', NEW.name, NEW.breed)]);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "pets_search_update"
      AFTER UPDATE OF "name", "breed", "description", "category_id" ON "pets"
      FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name"
                         OR OLD."breed" IS DISTINCT FROM NEW."breed"
                         OR OLD."description" IS DISTINCT FROM NEW."description"
                         OR OLD."category_id" IS DISTINCT FROM NEW."category_id")
      EXECUTE FUNCTION "pets_search_updated"()`);
    // A deleted pet's links go with it; its document is gone by then (cascade), and the
    // refresh finds no pet to write one for.
    await queryRunner.query(`
      CREATE FUNCTION "pet_tags_search_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(SELECT DISTINCT pet_id FROM changed));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "pet_tags_search_insert" AFTER INSERT ON "pet_tags"
      REFERENCING NEW TABLE AS changed
      FOR EACH STATEMENT EXECUTE FUNCTION "pet_tags_search_changed"()`);
    await queryRunner.query(`
      CREATE TRIGGER "pet_tags_search_delete" AFTER DELETE ON "pet_tags"
      REFERENCING OLD TABLE AS changed
      FOR EACH STATEMENT EXECUTE FUNCTION "pet_tags_search_changed"()`);
    await queryRunner.query(`
      CREATE FUNCTION "categories_search_renamed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pet_documents_refresh(ARRAY(SELECT id FROM pets WHERE category_id = NEW.id));
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER "categories_search_rename" AFTER UPDATE OF "name" ON "categories"
      FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name")
      EXECUTE FUNCTION "categories_search_renamed"()`);

    /*
     * The query: web-search syntax (websearch_to_tsquery), then every lexeme of three or more
     * characters, letters among them, that no document has is replaced by itself or one of the three name or breed
     * lexemes nearest to it by trigrams (similarity ≥ pg_trgm.similarity_threshold, 0.3).
     * A lexeme that some document has is a word, not a typo, and stays as it is. Without
     * sequential scans: for a lexeme it cannot know, the planner expects hundreds of
     * documents and reads pet_documents in order to stop at the first, which for a typo (no
     * document) reads them all (0.8 s at 1,000,000 pets instead of 1 ms from the index).
     */
    await queryRunner.query(`
      CREATE FUNCTION "pet_search_query"(search text) RETURNS tsquery
      LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$
      DECLARE
        result tsquery := websearch_to_tsquery('pet_search', search);
        lexeme text;
        nearest text;
      BEGIN
        FOR lexeme IN
          SELECT DISTINCT m[1] FROM regexp_matches(result::text, '''([[:alnum:]]{3,})''', 'g') AS m
        LOOP
          CONTINUE WHEN lexeme !~ '[[:alpha:]]'
            OR EXISTS (SELECT 1 FROM pet_documents WHERE document @@ lexeme::tsquery);
          SELECT string_agg(word, ' | ') INTO nearest
            FROM (SELECT word FROM search_words WHERE word % lexeme
                   ORDER BY similarity(word, lexeme) DESC, word LIMIT 3) AS w;
          CONTINUE WHEN nearest IS NULL;
          result := ts_rewrite(result, lexeme::tsquery, (lexeme || ' | ' || nearest)::tsquery);
        END LOOP;
        RETURN result;
      END $$`);

    await queryRunner.query(`
      INSERT INTO "pet_documents" ("pet_id", "document")
      SELECT id, pet_document(id, name, breed, description, category_id) FROM "pets"`);
    await queryRunner.query(
      `SELECT search_words_add(ARRAY(SELECT concat_ws(' ', name, breed) FROM pets))`,
    );

    await queryRunner.query(
      `CREATE INDEX "IDX_pet_documents_document" ON "pet_documents" USING gin ("document")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_search_words_trgm" ON "search_words" USING gin ("word" gin_trgm_ops)`,
    );
    // The sorts other than createdAt (IDX_pets_created) and the filters on the pet's own
    // columns; tags are found through pet_tags and tags' names.
    await queryRunner.query(
      `CREATE INDEX "IDX_pets_name_lower" ON "pets" ((lower("name") COLLATE "C"))`,
    );
    // One per direction: thousands of pets share an age, and the index must already hold
    // them in the tie order (id descending), pets without an age last, or every page sorts
    // a whole age's pets.
    await queryRunner.query(`CREATE INDEX "IDX_pets_age" ON "pets" ("age", "id" DESC)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_pets_age_desc" ON "pets" ("age" DESC NULLS LAST, "id" DESC)`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_pets_breed_lower" ON "pets" (lower("breed"))`);
    await queryRunner.query(`CREATE INDEX "IDX_tags_name_lower" ON "tags" (lower("name"))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_tags_name_lower"`);
    await queryRunner.query(`DROP INDEX "IDX_pets_breed_lower"`);
    await queryRunner.query(`DROP INDEX "IDX_pets_age_desc"`);
    await queryRunner.query(`DROP INDEX "IDX_pets_age"`);
    await queryRunner.query(`DROP INDEX "IDX_pets_name_lower"`);
    await queryRunner.query(`DROP FUNCTION "pet_search_query"(text)`);
    await queryRunner.query(`DROP TRIGGER "categories_search_rename" ON "categories"`);
    await queryRunner.query(`DROP FUNCTION "categories_search_renamed"()`);
    await queryRunner.query(`DROP TRIGGER "pet_tags_search_delete" ON "pet_tags"`);
    await queryRunner.query(`DROP TRIGGER "pet_tags_search_insert" ON "pet_tags"`);
    await queryRunner.query(`DROP FUNCTION "pet_tags_search_changed"()`);
    await queryRunner.query(`DROP TRIGGER "pets_search_update" ON "pets"`);
    await queryRunner.query(`DROP FUNCTION "pets_search_updated"()`);
    await queryRunner.query(`DROP TRIGGER "pets_search_insert" ON "pets"`);
    await queryRunner.query(`DROP FUNCTION "pets_search_inserted"()`);
    await queryRunner.query(`DROP FUNCTION "search_words_add"(text[])`);
    await queryRunner.query(`DROP FUNCTION "pet_documents_refresh"(bigint[])`);
    await queryRunner.query(`DROP FUNCTION "pet_document"(bigint, text, text, text, bigint)`);
    await queryRunner.query(`DROP TABLE "search_words"`);
    await queryRunner.query(`DROP TABLE "pet_documents"`);
    await queryRunner.query(`DROP TEXT SEARCH CONFIGURATION "pet_search"`);
  }
}
