import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The functions as src/database/schema/*.sql states them, their one current definition from
 * now on (docs/data-access.md, "The database's own code"). Each is the code its last
 * migration wrote, laid out anew, its comments moved to the schema files; the triggers were
 * already as those files define them.
 */
const FUNCTIONS = [
  `CREATE OR REPLACE FUNCTION pet_counts_add(category bigint, pet_status "public"."pet_status", delta int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "pet_counts" ("category_id", "status", "shard", "count")
  VALUES (category, pet_status, pg_backend_pid() % 16, delta)
  ON CONFLICT ("category_id", "status", "shard")
  DO UPDATE SET "count" = "pet_counts"."count" + delta;
END $$`,
  `CREATE OR REPLACE FUNCTION pet_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
  ELSIF (OLD."category_id", OLD."status") < (NEW."category_id", NEW."status") THEN
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
  ELSE
    PERFORM "pet_counts_add"(NEW."category_id", NEW."status", 1);
    PERFORM "pet_counts_add"(OLD."category_id", OLD."status", -1);
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION pet_documents_refresh(ids bigint[]) RETURNS void
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
END $$`,
  `CREATE OR REPLACE FUNCTION search_words_add(texts text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word)
  SELECT DISTINCT w COLLATE "C" FROM unnest(texts) AS x(text),
         unnest(tsvector_to_array(to_tsvector('pet_search', x.text))) AS w
   WHERE w ~ '^[[:alnum:]]{3,}$' AND w ~ '[[:alpha:]]'
   ORDER BY 1
  ON CONFLICT (word) DO NOTHING;
END $$`,
  `CREATE OR REPLACE FUNCTION pets_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_documents_refresh(ARRAY(SELECT id FROM inserted));
  PERFORM search_words_add(ARRAY(SELECT concat_ws(' ', name, breed) FROM inserted));
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION pets_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_documents_refresh(ARRAY[NEW.id]);
  IF OLD.name IS DISTINCT FROM NEW.name OR OLD.breed IS DISTINCT FROM NEW.breed THEN
    PERFORM search_words_add(ARRAY[concat_ws(' ', NEW.name, NEW.breed)]);
  END IF;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION pet_tags_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$`,
  `CREATE OR REPLACE FUNCTION categories_search_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pet_documents_refresh(ARRAY(SELECT id FROM pets WHERE category_id = NEW.id));
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION pets_age_to_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE pet_tags SET pet_age = NEW.age
   WHERE pet_id = NEW.id AND pet_age IS DISTINCT FROM NEW.age;
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION pet_search_query(search text) RETURNS tsquery
LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$
DECLARE
  result tsquery := websearch_to_tsquery('pet_search', search);
  lexeme text;
  nearest text;
  looked_up int := 0;
BEGIN
  FOR lexeme IN
    SELECT m[1] FROM regexp_matches(result::text, '''([[:alnum:]]{3,})''', 'g')
                     WITH ORDINALITY AS r(m, n)
     GROUP BY m[1] ORDER BY min(n)
  LOOP
    EXIT WHEN looked_up = 3;
    CONTINUE WHEN lexeme !~ '[[:alpha:]]'
      OR EXISTS (SELECT 1 FROM pet_documents WHERE document @@ lexeme::tsquery);
    looked_up := looked_up + 1;
    SELECT string_agg(word, ' | ') INTO nearest
      FROM (SELECT word FROM search_words WHERE word % lexeme
             ORDER BY similarity(word, lexeme) DESC, word LIMIT 3) AS w;
    CONTINUE WHEN nearest IS NULL;
    result := ts_rewrite(result, lexeme::tsquery, (lexeme || ' | ' || nearest)::tsquery);
  END LOOP;
  RETURN result;
END $$`,
  `CREATE OR REPLACE FUNCTION tag_counts_add(links jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_counts AS c (tag_id, category_id, status, shard, count)
  SELECT l.tag_id, l.category_id, l.status, pg_backend_pid() % 16, sum(l.delta)
    FROM jsonb_to_recordset(links)
         AS l(tag_id bigint, category_id bigint, status pet_status, delta int)
   -- A tag deleted by hand takes its links and its counters with it.
   WHERE EXISTS (SELECT 1 FROM tags t WHERE t.id = l.tag_id)
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (tag_id, category_id, status, shard)
  DO UPDATE SET count = c.count + EXCLUDED.count;
END $$`,
  `CREATE OR REPLACE FUNCTION pet_tags_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tag_counts_add(COALESCE((
    SELECT jsonb_agg(jsonb_build_object('tag_id', c.tag_id, 'category_id', p.category_id,
                                        'status', p.status,
                                        'delta', CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END))
      FROM changed c JOIN pets p ON p.id = c.pet_id), '[]'));
  RETURN NULL;
END $$`,
  `CREATE OR REPLACE FUNCTION pets_tag_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM tag_counts_add(COALESCE((
      SELECT jsonb_agg(jsonb_build_object('tag_id', pt.tag_id, 'category_id', OLD.category_id,
                                          'status', OLD.status, 'delta', -1))
        FROM pet_tags pt WHERE pt.pet_id = OLD.id), '[]'));
    RETURN OLD;
  END IF;
  PERFORM tag_counts_add(COALESCE((
    SELECT jsonb_agg(m) FROM (
      SELECT jsonb_build_object('tag_id', pt.tag_id, 'category_id', OLD.category_id,
                                'status', OLD.status, 'delta', -1) AS m
        FROM pet_tags pt WHERE pt.pet_id = NEW.id
      UNION ALL
      SELECT jsonb_build_object('tag_id', pt.tag_id, 'category_id', NEW.category_id,
                                'status', NEW.status, 'delta', 1)
        FROM pet_tags pt WHERE pt.pet_id = NEW.id) x), '[]'));
  RETURN NULL;
END $$`,
];

export class RestateSchemaCode1796570000000 implements MigrationInterface {
  name = 'RestateSchemaCode1796570000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of FUNCTIONS) await queryRunner.query(statement);
  }

  // The code before was the same, laid out as the earlier migrations wrote it.
  public async down(): Promise<void> {}
}
